import * as fs from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deadPid, drafts, tempDirectory } from "../test/helpers";
import { createSessionStore, type SessionStore } from "./index";

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => temp.cleanup());

/** A session of one closed turn whose writer closed cleanly (so it kept its tail). */
async function closedSession(store: SessionStore): Promise<string> {
  const { sessionId } = await store.create({ cwd: temp.root });
  const run = drafts(uuidv7());
  await store.append(sessionId, [run.start(), run.user("a question"), run.assistant("an answer")]);
  await store.append(sessionId, [run.end()]);
  return sessionId;
}

function tailsDir(): string {
  return join(temp.home, "tails");
}

function tailFile(sessionId: string): string {
  return join(tailsDir(), `${sessionId}.json`);
}

function tailsKind(store: SessionStore) {
  const kind = store.storageKinds().find((each) => each.kind === "kept tails");
  if (kind === undefined) throw new Error("no kept tails kind");
  return kind;
}

describe("kept tails in storage", () => {
  it("usage counts every file in tails/; reclaim removes the tail of a session whose log is gone and dead processes' temps, and keeps live tails, a live process's young temp and files not the store's", async () => {
    const store = createSessionStore({ home: temp.home });
    const kept = await closedSession(store);
    const gone = await closedSession(store);
    // The log removed by hand: `delete` would have forgotten its tail.
    fs.unlinkSync(store.pathOf(gone));
    const deadTemp = join(tailsDir(), `.${kept}.${deadPid()}.0123456789ab.1.tmp`);
    const liveTemp = join(tailsDir(), `.${kept}.${process.pid}.0123456789ab.2.tmp`);
    const notOurs = join(tailsDir(), "notes.txt");
    for (const path of [deadTemp, liveTemp, notOurs]) fs.writeFileSync(path, "{}");
    const sizes = fs
      .readdirSync(tailsDir())
      .map((name) => fs.statSync(join(tailsDir(), name)).size);
    expect(await tailsKind(store).usage()).toEqual({
      bytes: sizes.reduce((sum, size) => sum + size, 0),
      files: 5,
    });

    const live = new Set(await store.sessionIds());
    const freed = fs.statSync(tailFile(gone)).size + 2;
    expect(await tailsKind(store).reclaim(live, { dryRun: true })).toEqual({ bytes: freed });
    expect(fs.readdirSync(tailsDir())).toHaveLength(5);
    expect(await tailsKind(store).reclaim(live, { dryRun: false })).toEqual({ bytes: freed });
    expect(fs.readdirSync(tailsDir()).sort()).toEqual(
      [`${kept}.json`, `.${kept}.${process.pid}.0123456789ab.2.tmp`, "notes.txt"].sort(),
    );
    // The kept tail still serves: the next writer continues from it (no replay needed).
    const writer = await store.openWriter(kept);
    expect(writer.lastSeq).toBe(4);
    await writer.close();
  });

  it("a session created after compact listed the live ones keeps its tail", async () => {
    const store = createSessionStore({ home: temp.home });
    const live = new Set(await store.sessionIds());
    const late = await closedSession(store);
    expect(await tailsKind(store).reclaim(live, { dryRun: false })).toEqual({ bytes: 0 });
    expect(fs.existsSync(tailFile(late))).toBe(true);
  });

  it("emptyTrash removes a tail left for a session it empties, and keeps the tail of a live log of the same id", async () => {
    const store = createSessionStore({ home: temp.home });
    const trashed = await closedSession(store);
    const copied = await closedSession(store);
    const trashedTail = fs.readFileSync(tailFile(trashed));
    await store.delete(trashed);
    expect(fs.existsSync(tailFile(trashed))).toBe(false);
    // A tail a crash or an older program left for the trashed session.
    fs.writeFileSync(tailFile(trashed), trashedTail);
    // A copy of a live log in the trash (restored with `cp`, not `mv`).
    fs.copyFileSync(store.pathOf(copied), join(temp.home, "trash", `${copied}.jsonl`));
    expect(store.emptyTrash({ dryRun: true }).files).toBe(2);
    expect(fs.existsSync(tailFile(trashed))).toBe(true);
    expect(store.emptyTrash({ dryRun: false }).files).toBe(2);
    expect(fs.existsSync(tailFile(trashed))).toBe(false);
    expect(fs.existsSync(tailFile(copied))).toBe(true);
  });

  it("a session deleted to the trash and put back with mv is continued safely: the next writer replays, appends after its last seq and keeps a valid tail", async () => {
    const store = createSessionStore({ home: temp.home });
    const sessionId = await closedSession(store);
    const before = (await store.readSession(sessionId)).events;
    await store.delete(sessionId);
    expect(fs.existsSync(tailFile(sessionId))).toBe(false);
    fs.renameSync(join(temp.home, "trash", `${sessionId}.jsonl`), store.pathOf(sessionId));
    const run = drafts(uuidv7());
    await store.append(sessionId, [run.start(), run.user("again")]);
    const after = await store.readSession(sessionId);
    expect(after.events.slice(0, before.length)).toEqual(before);
    expect(after.lastSeq).toBe(before.length + 2);
    const kept = JSON.parse(fs.readFileSync(tailFile(sessionId), "utf8"));
    expect(kept.size).toBe(fs.statSync(store.pathOf(sessionId)).size);
    expect(kept.state).toEqual(after.invariantSnapshot());
  });
});
