import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";

const ID = "33333333-0000-4000-8000-000000000003";
const lines = (entries: object[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
const entry = (id: string, parentId: string | null, second: number, message: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: new Date(Date.UTC(2026, 0, 3, 9, 0, second)).toISOString(),
  message,
});
const user = (id: string, parentId: string | null, second: number, text: string) =>
  entry(id, parentId, second, { role: "user", content: [{ type: "text", text }] });
const answer = (id: string, parentId: string, second: number, text: string) =>
  entry(id, parentId, second, {
    role: "assistant",
    content: [{ type: "text", text }],
    provider: "anthropic",
    model: "claude-x",
    stopReason: "stop",
  });

/** A v3 pi file of three turns, and a way to append entries to it as pi does. */
function setup() {
  const root = testTempDir("tapedeck-pi-tree-");
  const folder = join(root, "sessions", "--w--");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `2026-01-03T09-00-00-000Z_${ID}.jsonl`);
  const header = { type: "session", version: 3, id: ID, timestamp: "2026-01-03T09:00:00.000Z" };
  writeFileSync(
    file,
    lines([
      { ...header, cwd: "/w" },
      user("a1", null, 1, "one"),
      answer("a2", "a1", 2, "first"),
      user("a3", "a2", 3, "two"),
      answer("a4", "a3", 4, "second"),
      user("a5", "a4", 5, "three"),
      answer("a6", "a5", 6, "third"),
    ]),
  );
  const store = createSessionStore({ home: join(root, "home") });
  const run = () => importSessions({ store, source: "pi", paths: [join(root, "sessions")] });
  const append = (...entries: object[]) => appendFileSync(file, lines(entries));
  const rewrite = (change: (entries: Record<string, unknown>[]) => object[]) =>
    writeFileSync(
      file,
      lines(
        change(
          readFileSync(file, "utf8")
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line)),
        ),
      ),
    );
  const contents = async (sessionId: string) =>
    (await store.readSession(sessionId)).events.flatMap((event) =>
      "content" in event ? [event.content] : [],
    );
  return { store, run, append, rewrite, contents };
}

describe("pi tree re-import", () => {
  it("writes a branch pi's /tree started after an import as a fork of it, the imported path untouched", async () => {
    const { store, run, append, contents } = setup();
    const first = await run();
    expect(first.counts).toEqual({ created: 1, appended: 0, forked: 0, unchanged: 0 });
    const main = first.files[0]!.sessions[0]!;

    // In pi: `/tree` back to the first answer, then a new prompt there (the current leaf moves).
    append(user("b1", "a2", 10, "other two"), answer("b2", "b1", 11, "other second"));
    const second = await run();
    expect(second.counts).toEqual({ created: 1, appended: 0, forked: 0, unchanged: 1 });
    const outcomes = second.files[0]!.sessions;
    expect(outcomes.find((outcome) => outcome.key.sessionId === ID)).toMatchObject({
      action: "unchanged",
      sessionId: main.sessionId,
    });
    const branch = outcomes.find((outcome) => outcome.key.sessionId !== ID)!;
    expect(branch).toMatchObject({ action: "created", newEvents: 3 });
    expect(branch.forkedFrom?.sessionId).toBe(main.sessionId);
    expect((await store.readHeader(branch.sessionId)).parent?.sessionId).toBe(main.sessionId);
    expect(await contents(branch.sessionId)).toEqual(["one", "first", "other two", "other second"]);
    expect(await contents(main.sessionId)).toEqual([
      "one",
      "first",
      "two",
      "second",
      "three",
      "third",
    ]);
    expect((await store.list()).length).toBe(2);

    // Unchanged file: nothing written.
    expect((await run()).counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });

    // Back on the branch: it grows, and only its new turn is appended.
    append(user("b3", "b2", 12, "more"), answer("b4", "b3", 13, "more answer"));
    const third = await run();
    expect(third.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 1 });
    expect(third.files[0]!.sessions.find((s) => s.action === "appended")).toMatchObject({
      sessionId: branch.sessionId,
      newEvents: 4,
    });

    // `/tree` to the old leaf and continue there: the first session grows.
    append(user("a7", "a6", 14, "four"), answer("a8", "a7", 15, "fourth"));
    const fourth = await run();
    expect(fourth.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 1 });
    expect(await contents(main.sessionId)).toHaveLength(8);
    expect((await store.list()).length).toBe(2);
  });

  it("recognises a v1 file pi rewrote as v3 (new random entry ids) and writes only the branch", async () => {
    const { store, run, append, rewrite, contents } = setup();
    // As pi wrote it before version 2: no ids.
    rewrite((entries) =>
      entries.map(({ id: _id, parentId: _parentId, version: _version, ...rest }) => rest),
    );
    const first = await run();
    const main = first.files[0]!.sessions[0]!;
    expect(first.counts.created).toBe(1);
    // pi opens it: migrates it to version 3 (an id and parentId on every entry, chained) and
    // rewrites the file; then `/tree` back to the first answer and a new prompt there.
    rewrite((entries) =>
      entries.map((entry, index) =>
        index === 0
          ? { ...entry, version: 3 }
          : { ...entry, id: `m${index}`, parentId: index === 1 ? null : `m${index - 1}` },
      ),
    );
    append(user("b1", "m2", 10, "other two"), answer("b2", "b1", 11, "other second"));
    const second = await run();
    expect(second.counts).toEqual({ created: 1, appended: 0, forked: 0, unchanged: 1 });
    const branch = second.files[0]!.sessions.find((outcome) => outcome.action === "created")!;
    expect(branch).toMatchObject({ newEvents: 3, forkedFrom: { sessionId: main.sessionId } });
    expect(await contents(branch.sessionId)).toEqual(["one", "first", "other two", "other second"]);
    expect((await run()).counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });

    // The migrated path grows: only the new turn is appended to the session imported from v1.
    append(user("m7", "m6", 12, "four"), answer("m8", "m7", 13, "fourth"));
    const third = await run();
    expect(third.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 1 });
    expect(await contents(main.sessionId)).toHaveLength(8);
    expect((await run()).counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });
    expect((await store.list()).length).toBe(2);
  });
});
