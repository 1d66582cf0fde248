/** Helpers shared by the conformance suite's areas. */
import { uuidv7 } from "@tapedeck/session";
import { type EventLogBuilder, eventLogBuilder } from "@tapedeck/session/testing";
import { expect } from "vitest";
import { InvalidQueryError } from "../errors";
import type { QueryScope, SessionQueryEngine } from "../query-engine";
import type { QueryEngineHarness } from "./harness";

/** What each area of the suite gets: the current test's harness and a way to add logs. */
export interface SuiteContext {
  readonly harness: QueryEngineHarness;
  readonly engine: SessionQueryEngine;
  /** Writes each builder's log through the harness. */
  put(...builders: EventLogBuilder[]): Promise<void>;
}

/** Every session. */
export const all: QueryScope = { all: true };
/** The workspaces the suite's logs live in. */
export const workspaceA = "/work/alpha";
export const workspaceB = "/work/beta";
/** Scopes of one workspace each. */
export const scopeA: QueryScope = { workspaceIds: [workspaceA] };
export const scopeB: QueryScope = { workspaceIds: [workspaceB] };

let clock = Date.parse("2026-03-01T08:00:00.000Z");
/** Each log starts a minute after the previous one, so ordering never ties. */
function nextStart(): Date {
  clock += 60_000;
  return new Date(clock);
}

/** A builder of a log in workspace A (or the given one), starting a minute after the last. */
export function build(
  options: { workspaceId?: string; parent?: { sessionId: string; seq: number }; cwd?: string } = {},
): EventLogBuilder {
  const workspaceId = options.workspaceId ?? workspaceA;
  return eventLogBuilder({
    sessionId: uuidv7(),
    workspaceId,
    cwd: options.cwd ?? workspaceId,
    start: nextStart(),
    ...(options.parent === undefined ? {} : { parent: options.parent }),
  });
}

/** Moves the last `count` events of a builder to "now" on the suite's clock (later than any log so far). */
export function moveToNow(builder: EventLogBuilder, count: number): void {
  const start = nextStart().getTime();
  builder.events.slice(-count).forEach((event, index) => {
    event.ts = new Date(start + index).toISOString();
  });
}

/** A finished one-turn conversation. */
export function conversation(
  prompt: string,
  answer: string,
  workspaceId = workspaceA,
): EventLogBuilder {
  return build({ workspaceId })
    .system("You are helpful.")
    .turn()
    .user(prompt)
    .assistant(answer)
    .end();
}

/** The error a promise rejects with (fails when it resolves). */
export async function expectError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

/** Expects an `InvalidQueryError` naming `field`. */
export async function expectInvalid(promise: Promise<unknown>, field: string): Promise<void> {
  const error = await expectError(promise);
  expect(InvalidQueryError.isInstance(error), String(error)).toBe(true);
  expect((error as InvalidQueryError).field).toBe(field);
}
