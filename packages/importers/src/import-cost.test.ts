/**
 * What an import costs, counted (not timed, so it holds on a busy machine): how often it parses
 * and serialises JSON. The throughput bench (`pnpm bench`) times it; these catch a change that
 * brings back a second serialisation per event or a replay of the log the text compare made
 * unnecessary.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore, LineEncoder, type SessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { importSessions } from "./import-run";

const SESSIONS = 6;
const TURNS = 20;

/** pi entries of one turn: prompt, a tool call, its result, the answer. */
function piTurn(turn: number, parent: string | null): { entries: object[]; last: string } {
  const id = (n: number) => `t${turn}e${n}`;
  const at = `2025-12-24T00:${String(turn).padStart(2, "0")}:00.000Z`;
  const message = (n: number, parentId: string | null, body: object) => ({
    type: "message",
    id: id(n),
    parentId,
    timestamp: at,
    message: body,
  });
  return {
    entries: [
      message(1, parent, { role: "user", content: `question ${turn}` }),
      message(2, id(1), {
        role: "assistant",
        content: [{ type: "toolCall", id: `c${turn}`, name: "bash", arguments: { command: "ls" } }],
        stopReason: "toolUse",
      }),
      message(3, id(2), {
        role: "toolResult",
        toolCallId: `c${turn}`,
        toolName: "bash",
        content: [{ type: "text", text: "a\nb" }],
      }),
      message(4, id(3), {
        role: "assistant",
        content: [{ type: "text", text: `answer ${turn}` }],
        stopReason: "stop",
      }),
    ],
    last: id(4),
  };
}

const lines = (entries: object[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");

/** A folder of pi sessions; returns it and the file of the first one. */
function piFolder(): { dir: string; first: string } {
  const dir = join(testTempDir("tapedeck-import-cost-"), "sessions");
  mkdirSync(dir);
  const files: string[] = [];
  for (let session = 0; session < SESSIONS; session += 1) {
    const id = `aaaaaaaa-0000-4000-8000-${String(session).padStart(12, "0")}`;
    const entries: object[] = [
      { type: "session", version: 3, id, timestamp: "2025-12-24T00:00:00.000Z", cwd: "/tmp" },
    ];
    let parent: string | null = null;
    for (let turn = 0; turn < TURNS; turn += 1) {
      const next = piTurn(turn, parent);
      entries.push(...next.entries);
      parent = next.last;
    }
    const file = join(dir, `${id}.jsonl`);
    writeFileSync(file, lines(entries));
    files.push(file);
  }
  return { dir, first: files[0]! };
}

/**
 * JSON.parse / JSON.stringify calls made by `run`, and event lines it serialised through the
 * store's encoder (which calls JSON.stringify only for nested values and strings to escape).
 */
async function counted(
  run: () => Promise<unknown>,
): Promise<{ parse: number; stringify: number; lines: number }> {
  const parse = vi.spyOn(JSON, "parse");
  const stringify = vi.spyOn(JSON, "stringify");
  const lines = vi.spyOn(LineEncoder.prototype, "json");
  try {
    await run();
    return {
      parse: parse.mock.calls.length,
      stringify: stringify.mock.calls.length,
      lines: lines.mock.calls.length,
    };
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
    lines.mockRestore();
  }
}

const sourceLines = SESSIONS * (1 + TURNS * 4);
/**
 * A few per run whatever its size (the change journal's first record, the test runner's own
 * messages while a slow run goes on, …); far below one more pass over the events.
 */
const PER_RUN = 24;
const calls = SESSIONS * TURNS;

function setup(): { store: SessionStore; dir: string; first: string } {
  const home = join(testTempDir("tapedeck-import-cost-home-"), "home");
  return { store: createSessionStore({ home }), ...piFolder() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("what an import costs", () => {
  it("parses each source line once and serialises each event once (tool arguments aside)", async () => {
    const { store, dir } = setup();
    let events = 0;
    const cost = await counted(async () => {
      events = (await importSessions({ store, source: "pi", paths: [dir] })).newEvents;
    });
    expect(cost.parse).toBeGreaterThanOrEqual(sourceLines);
    expect(cost.parse).toBeLessThanOrEqual(sourceLines + PER_RUN);
    // Per event one line; per call its arguments as JSON; per session the header.
    expect(cost.lines).toBe(events);
    expect(cost.stringify).toBeLessThanOrEqual(events + calls + SESSIONS + PER_RUN);
  });

  it("compares an unchanged re-import as text: no replay, one serialisation per event", async () => {
    const { store, dir } = setup();
    const events = (await importSessions({ store, source: "pi", paths: [dir] })).newEvents;
    const cost = await counted(() => importSessions({ store, source: "pi", paths: [dir] }));
    // Per session at most a couple of small documents (header, lock), never its events.
    expect(cost.parse).toBeLessThanOrEqual(sourceLines + 2 * SESSIONS + PER_RUN);
    expect(cost.lines).toBe(events);
    expect(cost.stringify).toBeLessThanOrEqual(events + calls + 2 * SESSIONS + PER_RUN);
  });

  it("appends to a grown source's session with one replay of its log (the writer's)", async () => {
    const { store, dir, first } = setup();
    const before = await importSessions({ store, source: "pi", paths: [dir] });
    const grown = before.files.find((file) => file.path === first)!.sessions[0]!;
    const logEvents = grown.newEvents;
    appendFileSync(first, lines(piTurn(TURNS, `t${TURNS - 1}e4`).entries));
    let summary: Awaited<ReturnType<typeof importSessions>> | undefined;
    const cost = await counted(async () => {
      summary = await importSessions({ store, source: "pi", paths: [dir] });
    });
    expect(summary?.counts).toMatchObject({ appended: 1, unchanged: SESSIONS - 1 });
    const appended = summary!.newEvents;
    // The new lines, and the grown session's log replayed once (by its writer).
    expect(cost.parse).toBeLessThanOrEqual(sourceLines + 4 + logEvents + 2 * SESSIONS + PER_RUN);
    // Every event compared as text once, the appended ones written.
    expect(cost.lines).toBe(before.newEvents + appended);
    expect(cost.stringify).toBeLessThanOrEqual(
      before.newEvents + 2 * appended + (calls + 1) + 2 * SESSIONS + PER_RUN,
    );
    const log = await store.readSession(grown.sessionId);
    expect(log.events.length).toBe(logEvents + appended);
  });

  it("appends nothing twice when another import appended between the compare and the lock", async () => {
    const { store, dir, first } = setup();
    const before = await importSessions({ store, source: "pi", paths: [dir] });
    const grown = before.files.find((file) => file.path === first)!.sessions[0]!;
    appendFileSync(first, lines(piTurn(TURNS, `t${TURNS - 1}e4`).entries));
    let other: Awaited<ReturnType<typeof importSessions>> | undefined;
    // The other import runs to its end just before this one takes the writer lock.
    const racing = new Proxy(store, {
      get(target, name) {
        if (name === "openWriter") {
          return async (sessionId: string) => {
            other ??= await importSessions({ store, source: "pi", paths: [first] });
            return target.openWriter(sessionId);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const summary = await importSessions({ store: racing, source: "pi", paths: [first] });
    expect(other?.counts.appended).toBe(1);
    expect(summary.counts).toMatchObject({ appended: 0, unchanged: 1 });
    const log = await store.readSession(grown.sessionId);
    expect(log.events.length).toBe(grown.newEvents + other!.newEvents);
  });
});
