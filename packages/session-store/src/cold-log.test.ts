import { existsSync, readFileSync, statSync } from "node:fs";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

/** A finished session of `turns` turns with some text; its id. */
async function finished(turns = 20): Promise<string> {
  const { sessionId } = await store.create({ cwd: temp.root, seed: [drafts("s").system("sys")] });
  for (let turn = 0; turn < turns; turn += 1) {
    const run = drafts(uuidv7());
    const [, , call] = await store.append(sessionId, [
      run.start(),
      run.user(`question ${turn}: what is in file ${turn}?`),
      run.call(`c${turn}`),
    ]);
    await store.append(sessionId, [
      run.output(`c${turn}`, call!.seq, `contents of file ${turn}\n`.repeat(30)),
      run.assistant(`file ${turn} holds its contents`),
      run.end(),
    ]);
  }
  return sessionId;
}

describe("cold (compressed) logs", () => {
  it("compact stores a log compressed; read, readSession, scan and openLogReader see the same bytes", async () => {
    const sessionId = await finished();
    const path = store.pathOf(sessionId);
    const plain = readFileSync(path);
    const entryBefore = store.entry(sessionId);
    const before = await store.readSession(sessionId);
    const result = await store.compact(sessionId);
    expect(result).toMatchObject({ action: "compressed", before: plain.length });
    expect(result.after).toBeLessThan(plain.length / 4);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.zst`)).toBe(true);
    expect((await store.readSession(sessionId)).events).toEqual(before.events);
    const lines: string[] = [];
    for await (const read of store.read(sessionId)) lines.push(JSON.stringify(read.event));
    expect(lines.join("\n")).toBe(plain.toString("utf8").trim().split("\n").slice(1).join("\n"));
    const entry = store.entry(sessionId);
    expect(entry).toMatchObject({ size: plain.length, compressed: true });
    expect(Math.abs((entry?.modifiedMs ?? 0) - (entryBefore?.modifiedMs ?? 1e15))).toBeLessThan(1);
    expect((await store.scan()).logs.map((log) => log.sessionId)).toEqual([sessionId]);
    expect(await store.sessionIds()).toEqual([sessionId]);
    const reader = store.openLogReader(sessionId);
    expect(reader?.readAt(0, plain.length)?.equals(plain)).toBe(true);
    reader?.close();
  });

  it("a writer appends to a segment beside the .zst, which stays as it is (no plain log restored)", async () => {
    const sessionId = await finished(2);
    const plain = readFileSync(store.pathOf(sessionId));
    await store.compact(sessionId);
    const cold = `${store.pathOf(sessionId)}.zst`;
    const zst = { bytes: readFileSync(cold), stat: statSync(cold) };
    const run = drafts(uuidv7());
    await store.append(sessionId, [run.start(), run.user("more"), run.end()]);
    expect(existsSync(store.pathOf(sessionId))).toBe(false);
    expect(readFileSync(cold).equals(zst.bytes)).toBe(true);
    expect(statSync(cold)).toMatchObject({ ino: zst.stat.ino, mtimeMs: zst.stat.mtimeMs });
    const segment = readFileSync(`${cold}.${plain.length}.seg`);
    expect(
      segment
        .toString()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).type),
    ).toEqual(["turn/start", "message", "turn/end"]);
    const reader = store.openLogReader(sessionId);
    expect(
      reader?.readAt(0, plain.length + segment.length)?.equals(Buffer.concat([plain, segment])),
    ).toBe(true);
    reader?.close();
    expect(store.entry(sessionId)?.size).toBe(plain.length + segment.length);
    expect((await store.readSession(sessionId)).lastSeq).toBeGreaterThan(0);
  });

  it("compact skips a recent log and a log a writer holds", async () => {
    const sessionId = await finished(1);
    expect((await store.compact(sessionId, { olderThanMs: 60_000 })).action).toBe("recent");
    const writer = await store.openWriter(sessionId);
    expect((await store.compact(sessionId)).action).toBe("busy");
    await writer.close();
    expect(statSync(store.pathOf(sessionId)).isFile()).toBe(true);
  });

  it("a fork of a compressed parent reads, and delete moves the compressed log to the trash", async () => {
    const parentId = await finished(2);
    await store.compact(parentId);
    const fork = await store.fork(parentId);
    expect((await store.readSession(fork.sessionId)).events.length).toBeGreaterThan(5);
    await store.delete(fork.sessionId);
    const child = await finished(1);
    await store.compact(child);
    await store.delete(child);
    expect(store.hasLog(child)).toBe(false);
    expect(existsSync(`${temp.home}/trash/${child}.jsonl.zst`)).toBe(true);
  });

  it("creating a session under the id of a compressed log is SESSION_EXISTS and leaves the log", async () => {
    const sessionId = await finished(1);
    await store.compact(sessionId);
    const before = await store.readSession(sessionId);
    const error = await store.create({ cwd: temp.root, sessionId }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: "SESSION_EXISTS" });
    expect(existsSync(store.pathOf(sessionId))).toBe(false);
    expect((await store.readSession(sessionId)).events).toEqual(before.events);
  });
});
