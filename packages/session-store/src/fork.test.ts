import { readFileSync, statSync, writeFileSync } from "node:fs";
import { INTERRUPTED_OUTPUT, SessionNotFoundError, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

/** seed (1), then two finished turns: seqs 2–5 and 6–9. */
async function parentSession(): Promise<string> {
  const { sessionId } = await store.create({
    cwd: temp.root,
    workspaceId: "ws-parent",
    seed: [drafts("s").system("sys")],
  });
  for (const question of ["one", "two"]) {
    const run = drafts(uuidv7());
    await store.append(sessionId, [
      run.start(),
      run.user(question),
      run.assistant(`re ${question}`),
      run.end(),
    ]);
  }
  return sessionId;
}

describe("fork", () => {
  it("writes only the child header, with lineage and the parent's workspaceId", async () => {
    const parent = await parentSession();
    const parentBytes = readFileSync(store.pathOf(parent));
    const child = await store.fork(parent, { atSeq: 5 });
    expect(child.header).toMatchObject({
      sessionId: child.sessionId,
      workspaceId: "ws-parent",
      parent: { sessionId: parent, seq: 5 },
    });
    expect(child.events).toEqual([]);
    expect(readFileSync(store.pathOf(child.sessionId), "utf8")).toBe(
      `${JSON.stringify(child.header)}\n`,
    );
    expect(statSync(store.pathOf(child.sessionId)).size).toBeLessThan(1024);
    expect(readFileSync(store.pathOf(parent))).toEqual(parentBytes);
  });

  it("the child reads as the parent prefix followed by its own events", async () => {
    const parent = await parentSession();
    const parentSession_ = await store.readSession(parent);
    const child = await store.fork(parent, { atSeq: 5 });
    const run = drafts(uuidv7());
    const own = await store.append(child.sessionId, [run.start(), run.user("branch")]);
    expect(own.map((event) => event.seq)).toEqual([6, 7]);
    // The parent goes on independently.
    const parentRun = drafts(uuidv7());
    await store.append(parent, [parentRun.start()]);

    const read = await store.readSession(child.sessionId);
    expect(read.events).toEqual([...parentSession_.events.slice(0, 5), ...own]);
    expect(read.header.parent).toEqual({ sessionId: parent, seq: 5 });
    expect(read.history().map((item) => (item.type === "message" ? item.content : ""))).toEqual([
      "sys",
      "one",
      "re one",
      "branch",
    ]);
    // read() yields only the child's own lines.
    const ownRead = [];
    for await (const entry of store.read(child.sessionId)) ownRead.push(entry.event.seq);
    expect(ownRead).toEqual([6, 7]);
  });

  it("forks at the last seq by default", async () => {
    const parent = await parentSession();
    const child = await store.fork(parent);
    expect(child.header.parent).toEqual({ sessionId: parent, seq: 9 });
    expect((await store.readSession(child.sessionId)).lastSeq).toBe(9);
  });

  it("forks a fork: the grandchild replays both prefixes", async () => {
    const parent = await parentSession();
    const child = await store.fork(parent, { atSeq: 5 });
    const run = drafts(uuidv7());
    await store.append(child.sessionId, [run.start(), run.user("child"), run.end()]);
    const grandchild = await store.fork(child.sessionId, { atSeq: 8 });
    expect(grandchild.header.parent).toEqual({ sessionId: child.sessionId, seq: 8 });
    expect(grandchild.events).toEqual([]);
    expect(grandchild.header.workspaceId).toBe("ws-parent");
    const grandRun = drafts(uuidv7());
    await store.append(grandchild.sessionId, [grandRun.start(), grandRun.user("grandchild")]);
    const read = await store.readSession(grandchild.sessionId);
    expect(read.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(read.history().map((item) => (item.type === "message" ? item.content : ""))).toEqual([
      "sys",
      "one",
      "re one",
      "child",
      "grandchild",
    ]);
    // A fork point inside the grandparent's prefix also works.
    const early = await store.fork(child.sessionId, { atSeq: 3 });
    expect(early.events.map((event) => [event.seq, event.type])).toEqual([[4, "turn/end"]]);
    const earlyRead = await store.readSession(early.sessionId);
    expect(earlyRead.events.slice(0, 3)).toEqual(read.events.slice(0, 3));
    expect(earlyRead.lastSeq).toBe(4);
  });

  it("forking inside an open turn starts the child with the normalize repairs", async () => {
    const parent = await parentSession();
    const run = drafts(uuidv7());
    const [, , call] = await store.append(parent, [
      run.start(),
      run.user("do it"),
      run.call("c9", "shell"),
    ]);
    const child = await store.fork(parent);
    expect(child.events.map((event) => [event.seq, event.type])).toEqual([
      [13, "function_call_output"],
      [14, "turn/end"],
    ]);
    expect(child.events[0]).toMatchObject({
      callId: "c9",
      output: INTERRUPTED_OUTPUT,
      isError: true,
      synthetic: true,
      sourceEventSeqs: [call!.seq],
    });
    const read = await store.readSession(child.sessionId);
    expect(read.openTurn).toBeNull();
    expect(read.pendingCalls).toEqual([]);
    const resumed = await store.resumeSession(child.sessionId);
    expect(resumed.synthesizedEvents).toEqual([]);
    // The parent itself is untouched: still open.
    expect((await store.readSession(parent)).openTurn).not.toBeNull();
  });

  it("forking mid-turn at an earlier seq closes the turn open at that point", async () => {
    const parent = await parentSession();
    const child = await store.fork(parent, { atSeq: 7 });
    expect(child.events.map((event) => event.type)).toEqual(["turn/end"]);
    expect(child.events[0]).toMatchObject({ seq: 8, status: "interrupted", synthetic: true });
  });

  it.each([-1, 10, 2.5, Number.NaN])("refuses atSeq %s with INVALID_FORK_POINT", async (atSeq) => {
    const parent = await parentSession();
    await expect(store.fork(parent, { atSeq })).rejects.toMatchObject({
      code: "INVALID_FORK_POINT",
      message: expect.stringContaining("from 0 to 9"),
    });
    expect((await store.list()).map((listing) => listing.sessionId)).toEqual([parent]);
  });

  it("refuses to fork an unknown session", async () => {
    await expect(store.fork(uuidv7())).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it("a fork whose parent is missing or loops is refused with BAD_HEADER", async () => {
    const parent = await parentSession();
    const child = await store.fork(parent, { atSeq: 2 });
    const header = JSON.parse(readFileSync(store.pathOf(child.sessionId), "utf8").split("\n")[0]!);
    writeFileSync(
      store.pathOf(child.sessionId),
      `${JSON.stringify({ ...header, parent: { sessionId: uuidv7(), seq: 2 } })}\n`,
    );
    await expect(store.readSession(child.sessionId)).rejects.toMatchObject({
      code: "BAD_HEADER",
      sessionId: child.sessionId,
      message: expect.stringContaining("does not exist"),
    });
    writeFileSync(
      store.pathOf(child.sessionId),
      `${JSON.stringify({ ...header, parent: { sessionId: child.sessionId, seq: 0 } })}\n`,
    );
    await expect(store.readSession(child.sessionId)).rejects.toMatchObject({
      code: "BAD_HEADER",
      message: expect.stringContaining("loops"),
    });
  });
});
