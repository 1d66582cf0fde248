import * as fs from "node:fs";
import { join } from "node:path";
import { EventLogCorruptError, type SessionEvent, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import { compressLog } from "./cold-log";
import type { SessionStore } from "./index";
import { decompressBytes } from "./zstd";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

/** Appends one finished turn (a call and its output) through a fresh writer, as a resume does. */
async function turn(sessionId: string, label: string): Promise<void> {
  const writer = await store.openWriter(sessionId);
  const run = drafts(uuidv7());
  const callId = `c-${uuidv7()}`;
  const [, , call] = await writer.append([run.start(true), run.user(label), run.call(callId)]);
  await writer.append([run.output(callId, call!.seq, `output of ${label}\n`.repeat(20))]);
  await writer.append([run.assistant(`answer to ${label}`), run.end()]);
  await writer.close();
}

async function compacted(turns: number): Promise<string> {
  const { sessionId } = await store.create({ cwd: temp.root, seed: [drafts("s").system("sys")] });
  for (let index = 0; index < turns; index += 1) await turn(sessionId, `turn ${index}`);
  expect((await store.compact(sessionId)).action).toBe("compressed");
  return sessionId;
}

const sessionsDir = () => join(temp.home, "sessions");
const names = () =>
  fs
    .readdirSync(sessionsDir())
    .filter((name) => !name.startsWith("."))
    .sort();

async function events(sessionId: string): Promise<SessionEvent[]> {
  const read: SessionEvent[] = [];
  for await (const { event } of store.read(sessionId)) read.push(event);
  return read;
}

describe("a cold log's plain segment", () => {
  it("resumed twice with turns in between: every reader joins the .zst and the segment, and the .zst is never written", async () => {
    const sessionId = await compacted(3);
    const cold = `${store.pathOf(sessionId)}.zst`;
    const zst = { bytes: fs.readFileSync(cold), stat: fs.statSync(cold) };
    const base = store.entry(sessionId)!.size;
    const before = await store.readSession(sessionId);
    const cursor = before.events.length;

    await turn(sessionId, "after compact 1");
    await turn(sessionId, "after compact 2");

    // The .zst untouched (same inode, mtime, bytes), no plain log: O(new lines) written.
    expect(fs.statSync(cold)).toMatchObject({ ino: zst.stat.ino, mtimeMs: zst.stat.mtimeMs });
    expect(fs.readFileSync(cold).equals(zst.bytes)).toBe(true);
    expect(names()).toEqual([`${sessionId}.jsonl.zst`, `${sessionId}.jsonl.zst.${base}.seg`]);
    const segment = fs.readFileSync(`${cold}.${base}.seg`);
    const plain = Buffer.concat([decompressBytes(zst.bytes), segment]);

    const session = await store.readSession(sessionId);
    expect(session.events.slice(0, cursor)).toEqual(before.events);
    expect(session.events.length).toBe(cursor + 12);
    expect(session.events.map((event) => event.seq)).toEqual(
      session.events.map((_, index) => index + 1),
    );
    expect(await events(sessionId)).toEqual(session.events);
    const resumed = await store.resumeSession(sessionId);
    expect(resumed.synthesizedEvents).toEqual([]);
    expect(resumed.session.events).toEqual(session.events);

    // Listing: the log's whole size, the segment's time.
    const entry = store.entry(sessionId)!;
    expect(entry.size).toBe(plain.length);
    expect(entry.modifiedMs).toBe(fs.statSync(`${cold}.${base}.seg`).mtimeMs);
    expect((await store.list()).map((listing) => listing.size)).toEqual([plain.length]);

    // Offsets run through the .zst's plain bytes, then the segment's: an index reading on from
    // where it stopped (the .zst's end) gets the segment's lines.
    const fromBase: SessionEvent[] = [];
    for await (const { event, offset } of store.read(sessionId, { fromOffset: base })) {
      expect(offset).toBeGreaterThanOrEqual(base);
      fromBase.push(event);
    }
    expect(fromBase).toEqual(session.events.slice(cursor));
    const reader = store.openLogReader(sessionId)!;
    expect(reader.readAt(0, plain.length)?.equals(plain)).toBe(true);
    expect(reader.readAt(base - 10, 20)?.equals(plain.subarray(base - 10, base + 10))).toBe(true);
    expect(reader.readAt(plain.length - 5, 10)).toBeNull();
    reader.close();

    // A writer continued from its kept tail reads its whole session through both when asked.
    const writer = await store.openWriter(sessionId);
    expect(writer.session.events).toEqual(session.events);
    await writer.close();
    const loading = await store.openWriter(sessionId);
    expect((await loading.loadSession()).events).toEqual(session.events);
    await loading.close();

    // A fork of the cold parent with a segment reads its prefix through both.
    const fork = await store.fork(sessionId);
    expect(
      (await store.readSession(fork.sessionId)).events.slice(0, session.events.length),
    ).toEqual(session.events);

    // Storage: the segment counts with the plain logs.
    const kinds = store.storageKinds();
    const usage = async (kind: string) =>
      (await kinds.find((found) => found.kind === kind)!.usage()).bytes;
    expect(await usage("plain logs")).toBe(
      segment.length + fs.statSync(store.pathOf(fork.sessionId)).size,
    );
    expect(await usage("compressed logs")).toBe(zst.bytes.length);
  });

  it("the folder watch reports an append to a cold log's segment as its session's change", async () => {
    const sessionId = await compacted(1);
    await turn(sessionId, "segment made");
    const seen: (string | null)[] = [];
    const stop = store.watch((id) => seen.push(id));
    expect(stop).not.toBeNull();
    try {
      const run = drafts(uuidv7());
      await store.append(sessionId, [run.start(true), run.user("watched"), run.end()]);
      await expect.poll(() => seen, { timeout: 5000 }).toContain(sessionId);
    } finally {
      stop?.();
    }
  });

  it("compact folds the segment into a new .zst (dry run first), and the next writer starts a new segment", async () => {
    const sessionId = await compacted(2);
    await turn(sessionId, "more");
    const session = await store.readSession(sessionId);
    const size = store.entry(sessionId)!.size;
    const dry = await store.compact(sessionId, { dryRun: true });
    expect(dry.action).toBe("compressed");
    expect(names()).toHaveLength(2);
    expect((await store.compact(sessionId, { olderThanMs: 60_000 })).action).toBe("recent");
    const folded = await store.compact(sessionId);
    expect(folded.action).toBe("compressed");
    // The dry run's estimate compresses the segment alone (no decompression of the .zst): at
    // least what the fold reached with the .zst's context, less than the bytes before.
    expect(dry.before).toBe(folded.before);
    expect(dry.after).toBeGreaterThanOrEqual(folded.after - 64);
    expect(dry.after).toBeLessThan(dry.before);
    expect(names()).toEqual([`${sessionId}.jsonl.zst`]);
    expect(store.entry(sessionId)!.size).toBe(size);
    expect((await store.readSession(sessionId)).events).toEqual(session.events);
    expect((await store.compact(sessionId)).action).toBe("already-compressed");
    await turn(sessionId, "after the fold");
    expect(names()).toEqual([`${sessionId}.jsonl.zst`, `${sessionId}.jsonl.zst.${size}.seg`]);
    expect((await store.readSession(sessionId)).lastSeq).toBe(session.lastSeq + 6);
  });

  it("a fold cut between the new .zst's rename and the segment's removal: the stale segment is never read, and the reclaim removes it", async () => {
    const sessionId = await compacted(2);
    await turn(sessionId, "folded");
    const session = await store.readSession(sessionId);
    const cold = `${store.pathOf(sessionId)}.zst`;
    const base = decompressBytes(fs.readFileSync(cold)).length;
    const stale = `${cold}.${base}.seg`;
    // What a kill between the two steps leaves: the new .zst holds the segment's lines, and the
    // segment is still there.
    const plain = Buffer.concat([decompressBytes(fs.readFileSync(cold)), fs.readFileSync(stale)]);
    fs.writeFileSync(`${cold}.tmp`, compressLog(plain));
    fs.renameSync(`${cold}.tmp`, cold);

    expect((await store.readSession(sessionId)).events).toEqual(session.events);
    expect(store.entry(sessionId)!.size).toBe(plain.length);
    const writer = await store.openWriter(sessionId);
    expect(writer.lastSeq).toBe(session.lastSeq);
    await writer.close();
    await turn(sessionId, "after");
    const after = await store.readSession(sessionId);
    expect(after.events.slice(0, session.events.length)).toEqual(session.events);
    expect(after.lastSeq).toBe(session.lastSeq + 6);
    expect(fs.existsSync(stale)).toBe(true);

    const plainLogs = store.storageKinds().find((kind) => kind.kind === "plain logs")!;
    const staleBytes = fs.statSync(stale).size;
    expect(await plainLogs.reclaim(new Set(), { dryRun: true })).toEqual({ bytes: staleBytes });
    expect(fs.existsSync(stale)).toBe(true);
    expect(await plainLogs.reclaim(new Set(), { dryRun: false })).toEqual({ bytes: staleBytes });
    expect(names()).toEqual([
      `${sessionId}.jsonl.zst`,
      `${cold.split("/").pop()}.${plain.length}.seg`,
    ]);
    expect((await store.readSession(sessionId)).events).toEqual(after.events);
  });

  it("a torn tail in the segment is repaired like a plain log's (moved to a sidecar); damage in its middle is refused with the session and line", async () => {
    const sessionId = await compacted(2);
    await turn(sessionId, "whole");
    const session = await store.readSession(sessionId);
    const base = fs
      .readdirSync(sessionsDir())
      .find((name) => name.endsWith(".seg"))!
      .split(".")
      .at(-2);
    const segment = join(sessionsDir(), `${sessionId}.jsonl.zst.${base}.seg`);
    const whole = fs.readFileSync(segment);
    fs.appendFileSync(segment, '{"seq":99,"type":"mess');
    await expect(store.readSession(sessionId)).rejects.toMatchObject({ code: "TORN_TAIL" });
    const resumed = await store.resumeSession(sessionId);
    expect(resumed.session.events).toEqual(session.events);
    expect(fs.readFileSync(segment).equals(whole)).toBe(true);
    const sidecars = names().filter((name) => name.includes(".torn-"));
    expect(sidecars).toHaveLength(1);
    expect(fs.readFileSync(join(sessionsDir(), sidecars[0]!), "utf8")).toBe(
      '{"seq":99,"type":"mess',
    );

    // A line in the middle of the segment damaged: refused, nothing moved or cut.
    const lines = whole.toString("utf8").split("\n");
    lines[1] = `${lines[1]!.slice(0, 10)}#${lines[1]!.slice(11)}`;
    fs.writeFileSync(segment, lines.join("\n"));
    const refused = await store.readSession(sessionId).catch((error: unknown) => error);
    expect(EventLogCorruptError.isInstance(refused)).toBe(true);
    const damaged = refused as EventLogCorruptError;
    expect(damaged.sessionId).toBe(sessionId);
    const zstLines = decompressBytes(fs.readFileSync(`${store.pathOf(sessionId)}.zst`))
      .toString("utf8")
      .trimEnd()
      .split("\n").length;
    expect(damaged.line).toBe(zstLines + 2);
    await expect(store.openWriter(sessionId)).rejects.toMatchObject({ line: zstLines + 2 });
    await expect(store.repair(sessionId)).rejects.toMatchObject({ code: "BAD_JSON" });
    expect(fs.readFileSync(segment, "utf8")).toBe(lines.join("\n"));
  });

  it("delete moves the .zst and its segment to the trash, the segment first", async () => {
    const sessionId = await compacted(1);
    await turn(sessionId, "more");
    await store.delete(sessionId);
    expect(names()).toEqual([]);
    expect(store.hasLog(sessionId)).toBe(false);
    const trash = fs.readdirSync(join(temp.home, "trash")).sort();
    expect(trash).toHaveLength(2);
    expect(trash[0]).toBe(`${sessionId}.jsonl.zst`);
    expect(trash[1]).toMatch(new RegExp(`^${sessionId}\\.jsonl\\.zst\\.\\d+\\.seg$`));
  });
});
