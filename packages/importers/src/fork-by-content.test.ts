import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";

const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
const A = "0194aaaa-0000-7000-8000-000000000001";
const B = "0194aaaa-0000-7000-8000-000000000002";

/** A rollout of `prompts` (each answered), its lines timed from `minute`. */
function rollout(id: string, prompts: string[], minute: number, forkedFrom?: string): string {
  let second = 0;
  const line = (type: string, payload: object) => {
    second += 1;
    const timestamp = new Date(Date.UTC(2025, 11, 28, 12, minute, second)).toISOString();
    return `${JSON.stringify({ timestamp, type, payload })}\n`;
  };
  const meta = {
    id,
    timestamp: new Date(Date.UTC(2025, 11, 28, 12, minute)).toISOString(),
    cwd: "/w",
    ...(forkedFrom === undefined ? {} : { forked_from_id: forkedFrom }),
  };
  return [
    line("session_meta", meta),
    ...prompts.flatMap((prompt) => [
      line("response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: prompt }],
      }),
      line("response_item", {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: `answer to ${prompt}` }],
      }),
    ]),
  ].join("");
}

function setup() {
  const root = testTempDir("tapedeck-codex-forks-");
  const day = join(root, "sessions", "2025", "12", "28");
  mkdirSync(day, { recursive: true });
  const write = (id: string, text: string) =>
    writeFileSync(join(day, `rollout-2025-12-28T12-00-00-${id}.jsonl`), text);
  const store = createSessionStore({ home: join(root, "home") });
  const run = () => importSessions({ store, source: "codex", paths: [join(root, "sessions")] });
  return { store, write, run };
}

describe("Codex forked_from_id", () => {
  it("writes a fork that re-recorded its parent's history later as a fork by reference of it", async () => {
    const { store, write, run } = setup();
    write(A, rollout(A, ["one", "two"], 0));
    // Forked ten minutes later: the parent's history copied with the fork's own times.
    write(B, rollout(B, ["one", "two", "three"], 10, A));
    const first = await run();
    const [parent, fork] = first.files.map((file) => file.sessions[0]!);
    // The parent's last turn is still open (its rollout may grow): the fork shares the turns
    // before it.
    expect(fork).toMatchObject({
      action: "created",
      forkedFrom: { sessionId: parent!.sessionId, seq: 4 },
      newEvents: 7,
    });
    const header = await store.readHeader(fork!.sessionId);
    expect(header.parent).toEqual({ sessionId: parent!.sessionId, seq: 4 });
    const events = (await store.readSession(fork!.sessionId)).events;
    const contents = events.flatMap((event) => ("content" in event ? [event.content] : []));
    expect(contents).toEqual([
      "one",
      "answer to one",
      "two",
      "answer to two",
      "three",
      "answer to three",
    ]);
    // The fork's own turn keeps its own times.
    expect(events.at(-1)?.ts).toBe("2025-12-28T12:10:07.000Z");

    const again = await run();
    expect(again.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });
    write(B, rollout(B, ["one", "two", "three", "four"], 10, A));
    const grown = await run();
    expect(grown.files[1]?.sessions[0]).toMatchObject({ action: "appended", newEvents: 4 });
    expect((await store.list()).length).toBe(2);
  });

  it("re-imports a fork unchanged after its parent grew a turn that says what the fork's own does", async () => {
    const { store, write, run } = setup();
    write(A, rollout(A, ["one", "two"], 0));
    write(B, rollout(B, ["one", "two", "three"], 10, A));
    const first = await run();
    const fork = first.files[1]!.sessions[0]!;
    expect(fork.forkedFrom?.seq).toBe(4);
    // The parent, continued later, is asked (and answers) what the fork was asked.
    write(A, rollout(A, ["one", "two", "three"], 0));
    const again = await run();
    expect(again.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 1 });
    expect(again.files[1]?.sessions[0]).toMatchObject({
      action: "unchanged",
      sessionId: fork.sessionId,
    });
    expect((await store.list()).length).toBe(2);
  });

  it("leaves a fork imported before its parent as it was", async () => {
    const { store, write, run } = setup();
    write(B, rollout(B, ["one", "two", "three"], 10, A));
    const alone = await run();
    expect(alone.counts.created).toBe(1);
    write(A, rollout(A, ["one", "two"], 0));
    const both = await run();
    expect(both.counts).toEqual({ created: 1, appended: 0, forked: 0, unchanged: 1 });
    const fork = both.files.flatMap((file) => file.sessions).find((s) => s.key.sessionId === B);
    expect((await store.readHeader(fork!.sessionId)).parent).toBeUndefined();
  });
});

describe("pi parentSession", () => {
  it("writes a file pi forked from another (/fork copies the path's entries) as a fork by reference", async () => {
    const root = testTempDir("tapedeck-pi-forks-");
    const folder = join(root, "sessions", "--w--");
    mkdirSync(folder, { recursive: true });
    const P = "11111111-0000-4000-8000-000000000001";
    const F = "22222222-0000-4000-8000-000000000002";
    const entry = (id: string, parentId: string | null, second: number, message: object) => ({
      type: "message",
      id,
      parentId,
      timestamp: new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString(),
      message,
    });
    const user = (text: string) => ({ role: "user", content: text });
    const answer = (text: string) => ({
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "anthropic",
      model: "claude-x",
      stopReason: "stop",
    });
    const trunk = [
      entry("a1", null, 1, user("one")),
      entry("a2", "a1", 2, answer("first")),
      entry("a3", "a2", 3, user("two")),
      entry("a4", "a3", 4, answer("second")),
    ];
    const parentFile = join(folder, `2026-01-02T10-00-00-000Z_${P}.jsonl`);
    const header = (id: string, second: number, extra: object = {}) => ({
      type: "session",
      version: 3,
      id,
      timestamp: new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString(),
      cwd: "/w",
      ...extra,
    });
    writeFileSync(parentFile, jsonl([header(P, 0), ...trunk]));
    writeFileSync(
      join(folder, `2026-01-02T10-01-00-000Z_${F}.jsonl`),
      jsonl([
        header(F, 60, { parentSession: parentFile }),
        ...trunk.slice(0, 2),
        entry("b1", "a2", 61, user("other two")),
        entry("b2", "b1", 62, answer("other second")),
      ]),
    );
    const store = createSessionStore({ home: join(root, "home") });
    const run = () => importSessions({ store, source: "pi", paths: [join(root, "sessions")] });
    const first = await run();
    const [parent, fork] = first.files.map((file) => file.sessions[0]!);
    expect(fork).toMatchObject({
      key: { sessionId: F },
      forkedFrom: { sessionId: parent!.sessionId, seq: 4 },
      newEvents: 3,
    });
    expect((await store.readHeader(fork!.sessionId)).parent).toEqual({
      sessionId: parent!.sessionId,
      seq: 4,
    });
    const again = await run();
    expect(again.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });
  });
});
