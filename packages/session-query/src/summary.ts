/**
 * The per-session aggregate both backends keep up to date event by event, and how it becomes a
 * {@link SessionSummary}. Appending an event is O(1), so the SQLite backend can extend it from
 * only the bytes appended since the last sync.
 */
import type { MessageEvent, SessionEvent, SessionHeader } from "@tapedeck/session";
import type { SessionStatus, SessionSummary, SpawnRef } from "./query-engine";

/**
 * How the run ids `tapedeck import` writes begin (`@tapedeck/importers`' `importedRunId`): a turn
 * opened under one is the other tool's, not a Tapedeck run's.
 */
export const IMPORTED_RUN_PREFIX = "import-";

/** Longest title kept; longer first messages are cut with `…`. */
export const TITLE_LENGTH = 120;

/** Running totals over a session's own events. */
export interface SessionAggregate {
  eventCount: number;
  turnCount: number;
  /** `ts` of the last event, or `null` before the first. */
  lastEventAt: string | null;
  /** seq of the last event (`parent.seq` for a fork without events, else 0). */
  lastSeq: number;
  turnOpen: boolean;
  /**
   * True when the open turn was written by an import (its run id is an importer's, `import-…`):
   * the session then lists as `imported`, not `active`. Absent in aggregates stored before.
   */
  turnImported?: boolean;
  lastTurnStatus: string | null;
  /** The first user message in full (the title is cut from it). */
  firstPrompt: string | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** The aggregate of a session with no events yet. */
export function emptyAggregate(header: SessionHeader): SessionAggregate {
  return {
    eventCount: 0,
    turnCount: 0,
    lastEventAt: null,
    lastSeq: header.parent?.seq ?? 0,
    turnOpen: false,
    lastTurnStatus: null,
    firstPrompt: null,
    model: null,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
  };
}

/** Folds one event into the aggregate (in place). */
export function addEvent(aggregate: SessionAggregate, event: SessionEvent): void {
  aggregate.eventCount += 1;
  aggregate.lastEventAt = event.ts;
  aggregate.lastSeq = event.seq;
  switch (event.type) {
    case "turn/start":
      aggregate.turnCount += 1;
      aggregate.turnOpen = true;
      aggregate.turnImported = event.runId.startsWith(IMPORTED_RUN_PREFIX);
      aggregate.model = event.model;
      break;
    case "turn/end":
      aggregate.turnOpen = false;
      aggregate.lastTurnStatus = event.status;
      break;
    case "message":
      if (event.role === "user" && aggregate.firstPrompt === null) {
        aggregate.firstPrompt = promptOf(event);
      }
      break;
    case "model/response":
      if (event.usage !== undefined) {
        aggregate.inputTokens += event.usage.inputTokens;
        aggregate.outputTokens += event.usage.outputTokens;
        aggregate.cachedInputTokens += event.usage.cachedInputTokens ?? 0;
      }
      break;
  }
}

/**
 * What a user message titles its session with: the slash command typed (`command`, e.g. `/init`)
 * when the message is the prompt a command expanded to, else its content. The one rule for the
 * index, the CLI, ACP and the viewer.
 */
export function promptOf(message: Pick<MessageEvent, "content" | "command">): string {
  return message.command ?? message.content;
}

/** The title cut from a first user message: whitespace collapsed, at most {@link TITLE_LENGTH}. */
export function titleOf(firstPrompt: string | null): string | null {
  if (firstPrompt === null) return null;
  // Only the start can end up in the title; a 100 kB pasted prompt need not be scanned whole.
  const title = firstPrompt
    .slice(0, TITLE_LENGTH * 8)
    .replace(/\s+/gu, " ")
    .trim();
  if (title === "") return null;
  // At most one character per UTF-16 unit: a short title needs no count of its characters.
  if (title.length <= TITLE_LENGTH) return title;
  const chars = [...title];
  return chars.length <= TITLE_LENGTH ? title : `${chars.slice(0, TITLE_LENGTH - 1).join("")}…`;
}

/** The status the aggregate (and any recorded damage) implies. */
export function statusOf(aggregate: SessionAggregate, damaged: boolean): SessionStatus {
  if (damaged) return "damaged";
  if (aggregate.turnOpen) return aggregate.turnImported === true ? "imported" : "active";
  if (aggregate.lastTurnStatus === null || aggregate.lastTurnStatus === "completed") {
    return "completed";
  }
  return "interrupted";
}

/** Damage recorded against a session. */
export interface Damage {
  code: string;
  message: string;
}

/** The header's `spawnedBy`, copied to its three fields (a header keeps unknown fields). */
export function spawnRefOf(header: SessionHeader): SpawnRef | undefined {
  const spawnedBy = header.spawnedBy;
  if (spawnedBy === undefined) return undefined;
  return { sessionId: spawnedBy.sessionId, seq: spawnedBy.seq, callId: spawnedBy.callId };
}

/** A fresh {@link SessionSummary} object. */
export function toSummary(
  header: SessionHeader,
  aggregate: SessionAggregate,
  forkCount: number,
  damage: Damage | null,
): SessionSummary {
  const summary: SessionSummary = {
    id: header.sessionId,
    workspaceId: header.workspaceId,
    cwd: header.cwd,
    title: titleOf(aggregate.firstPrompt),
    createdAt: header.createdAt,
    updatedAt: aggregate.lastEventAt ?? header.createdAt,
    eventCount: aggregate.eventCount,
    turnCount: aggregate.turnCount,
    status: statusOf(aggregate, damage !== null),
    parent: header.parent === undefined ? null : { ...header.parent },
    forkCount,
    model: aggregate.model,
    usage: {
      inputTokens: aggregate.inputTokens,
      outputTokens: aggregate.outputTokens,
      cachedInputTokens: aggregate.cachedInputTokens,
    },
  };
  if (damage !== null) summary.damage = { ...damage };
  const spawnedBy = spawnRefOf(header);
  if (spawnedBy !== undefined) summary.spawnedBy = spawnedBy;
  return summary;
}

/** A deep copy of a summary (what `structuredClone` makes, without its serialisation cost). */
export function copySummary(summary: SessionSummary): SessionSummary {
  const copy: SessionSummary = {
    ...summary,
    parent: summary.parent === null ? null : { ...summary.parent },
    usage: { ...summary.usage },
  };
  if (summary.damage !== undefined) copy.damage = { ...summary.damage };
  if (summary.spawnedBy !== undefined) copy.spawnedBy = { ...summary.spawnedBy };
  return copy;
}
