import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";

const ID = "44444444-0000-4000-8000-000000000004";
const lines = (entries: object[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
const entry = (
  type: string,
  uuid: string,
  parentUuid: string | null,
  second: number,
  message: object,
) => ({
  type,
  uuid,
  parentUuid,
  sessionId: ID,
  cwd: "/w",
  isSidechain: false,
  timestamp: new Date(Date.UTC(2026, 0, 4, 9, 0, second)).toISOString(),
  message,
});
const user = (uuid: string, parent: string | null, second: number, content: unknown) =>
  entry("user", uuid, parent, second, { role: "user", content });
const answer = (uuid: string, parent: string, second: number, content: unknown[]) =>
  entry("assistant", uuid, parent, second, {
    id: `msg_${uuid}`,
    role: "assistant",
    model: "claude-x",
    content,
  });
const text = (value: string) => [{ type: "text", text: value }];
const call = (id: string) => [{ type: "tool_use", id, name: "Bash", input: { command: id } }];
const result = (id: string) => [{ type: "tool_result", tool_use_id: id, content: `ran ${id}` }];

const firstTurn = ["one", "ran toolu_a", "ran toolu_b", "first"];

/**
 * A Claude Code transcript of three turns, the first with two parallel tool calls (each result
 * chained to its own call, as Claude Code writes them), and a way to append entries as it does.
 */
function setup() {
  const root = testTempDir("tapedeck-claude-tree-");
  const project = join(root, "projects", "-w");
  mkdirSync(project, { recursive: true });
  const file = join(project, `${ID}.jsonl`);
  writeFileSync(
    file,
    lines([
      user("u1", null, 1, "one"),
      answer("c1", "u1", 2, call("toolu_a")),
      answer("c2", "c1", 3, call("toolu_b")),
      user("r1", "c1", 4, result("toolu_a")),
      user("r2", "c2", 5, result("toolu_b")),
      answer("a1", "r2", 6, text("first")),
      user("u2", "a1", 7, "two"),
      answer("a2", "u2", 8, text("second")),
      user("u3", "a2", 9, "three"),
      answer("a3", "u3", 10, text("third")),
    ]),
  );
  const store = createSessionStore({ home: join(root, "home") });
  const run = () =>
    importSessions({ store, source: "claude-code", paths: [join(root, "projects")] });
  const append = (...entries: object[]) => appendFileSync(file, lines(entries));
  const contents = async (sessionId: string) =>
    (await store.readSession(sessionId)).events.flatMap((event) =>
      "content" in event ? [event.content] : "output" in event ? [event.output] : [],
    );
  /** The one session `summary` created: a fork by reference of `parent`, holding `firstTurn` + `rest`. */
  const forkWritten = async (
    summary: Awaited<ReturnType<typeof run>>,
    parent: string,
    rest: string[],
  ) => {
    expect(summary.counts).toMatchObject({ created: 1, appended: 0, forked: 0 });
    const fork = summary.files[0]!.sessions.find((outcome) => outcome.action === "created")!;
    expect(fork.forkedFrom?.sessionId).toBe(parent);
    expect((await store.readHeader(fork.sessionId)).parent?.sessionId).toBe(parent);
    expect(await contents(fork.sessionId)).toEqual([...firstTurn, ...rest]);
    return fork;
  };
  return { store, run, append, contents, forkWritten };
}

describe("Claude Code tree re-import", () => {
  it("writes the conversation a rewind started after an import as a fork of it, the imported session untouched", async () => {
    const { store, run, append, contents, forkWritten } = setup();
    const first = await run();
    expect(first.counts).toEqual({ created: 1, appended: 0, forked: 0, unchanged: 0 });
    const main = first.files[0]!.sessions[0]!;
    expect(await contents(main.sessionId)).toEqual([
      ...firstTurn,
      "two",
      "second",
      "three",
      "third",
    ]);

    // In Claude Code: rewind to "two" and send "other two" in its place (the abandoned
    // continuation stays in the file; the new prompt hangs from the first answer).
    append(user("b1", "a1", 20, "other two"), answer("b2", "b1", 21, text("other second")));
    const second = await run();
    expect(second.files[0]!.sessions.find((s) => s.key.sessionId === ID)).toMatchObject({
      action: "unchanged",
      sessionId: main.sessionId,
    });
    const branch = await forkWritten(second, main.sessionId, ["other two", "other second"]);
    expect(branch.key.sessionId).toBe(`${ID}#b1`);
    expect(await contents(main.sessionId)).toHaveLength(8);
    expect((await store.list()).length).toBe(2);

    // Unchanged file: nothing written.
    expect((await run()).counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });

    // The new conversation goes on: only its new turn is appended to it.
    append(user("b3", "b2", 22, "more"), answer("b4", "b3", 23, text("more answer")));
    const third = await run();
    expect(third.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 1 });
    expect(third.files[0]!.sessions.find((s) => s.action === "appended")).toMatchObject({
      sessionId: branch.sessionId,
    });
    expect(await contents(branch.sessionId)).toEqual([
      ...firstTurn,
      "other two",
      "other second",
      "more",
      "more answer",
    ]);

    // A second rewind, to "three" of the first conversation: one more fork, of the first session.
    append(user("d1", "a2", 24, "other three"), answer("d2", "d1", 25, text("other third")));
    await forkWritten(await run(), main.sessionId, ["two", "second", "other three", "other third"]);
    expect(await contents(main.sessionId)).toHaveLength(8);
    expect((await store.list()).length).toBe(3);
  });
});
