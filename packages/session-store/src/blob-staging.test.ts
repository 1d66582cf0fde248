/**
 * A writer's blob is written to a staged temp file in the store's folder before its bytes are
 * hashed (its fsync starts then), and renamed into its shard once the hash is known. The file is
 * a spare made ahead while writers are open. Whatever happens to the batch, no staged file is
 * left behind; one a killed writer left goes at the next writer's open in the home, or with the
 * sweep.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, join, relative } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deadPid, drafts, type TempDirectory, tempStore, until } from "../test/helpers";
import type { BlobStore } from "./blob-store";
import { createSessionStore, type SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
let blobs: BlobStore;
beforeEach(() => ({ temp, store, blobs } = tempStore()));
afterEach(() => temp.cleanup());

const output = (seed: string) => `${seed}: ${"a line of a tool's output\n".repeat(4000)}`;

/** The empty staged file `target`'s open writers keep ready for their next blob, if any. */
async function spareOf(target: SessionStore): Promise<string | undefined> {
  return (target as unknown as { blobs: BlobStore }).blobs.spareFile();
}

/**
 * Every file under the blob store, relative to it (shard folders themselves left out, and the
 * spare staged file of `store`'s open writers).
 */
async function blobStoreFiles(): Promise<string[]> {
  const root = join(temp.home, "blobs", "sha256");
  const files: string[] = [];
  if (!existsSync(root)) return files; // a writer's open makes it in the background
  const spare = await spareOf(store);
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && path !== spare) files.push(relative(root, path));
  }
  return files.sort();
}

async function openTurn() {
  return openTurnIn(store);
}

async function openTurnIn(target: SessionStore) {
  const { sessionId } = await target.create({ cwd: temp.root });
  const writer = await target.openWriter(sessionId);
  const run = drafts(uuidv7());
  const [, , call] = await writer.append([run.start(), run.user("go"), run.call("c1")]);
  return { sessionId, writer, run, callSeq: call!.seq };
}

/**
 * {@link openTurn} after a first blob (so the store keeps a spare), with call `c2` open: its
 * `callSeq`, and the spare's path.
 */
async function openTurnWithSpare() {
  const turn = await openTurn();
  const [, call] = await turn.writer.append([
    turn.run.output("c1", turn.callSeq, output("first")),
    turn.run.call("c2"),
  ]);
  const spare = await spareOf(store);
  if (spare === undefined) throw new Error("no spare after a first blob");
  return { ...turn, callSeq: call!.seq, spare };
}

describe("a writer's staged blob files", () => {
  it("a 100 KB output ends as one blob file under its name, nothing left in the store's folder", async () => {
    const { sessionId, writer, run, callSeq } = await openTurn();
    await writer.append([run.output("c1", callSeq, output("one")), run.end()]);
    await writer.close();
    const files = await blobStoreFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{62}$/);
    const session = await store.readSession(sessionId);
    expect(session.events.at(-2)).toMatchObject({ output: output("one") });
  });

  it("a batch refused after its payload was staged leaves no file, and the writer goes on", async () => {
    const { sessionId, writer, run, callSeq } = await openTurn();
    const refused = writer.append([
      run.output("c1", callSeq, output("refused")),
      // A result for a call that was never made: the invariants refuse it.
      run.output("c9", callSeq, "no such call"),
    ]);
    await expect(refused).rejects.toThrow();
    expect(await blobStoreFiles()).toEqual([]);
    await writer.append([run.output("c1", callSeq, output("kept")), run.end()]);
    await writer.close();
    expect(await blobStoreFiles()).toHaveLength(1);
    const session = await store.readSession(sessionId);
    expect(session.events.at(-2)).toMatchObject({ output: output("kept") });
  });

  it("a blob that cannot be put in its shard (a file stands in its folder's place) fails the append and leaves no staged file", async () => {
    const text = output("blocked");
    const hash = createHash("sha256").update(text).digest("hex");
    const { sessionId, writer, run, callSeq } = await openTurn();
    const root = join(temp.home, "blobs", "sha256");
    // The writer's open makes the shard folders in the background: wait until they are all made
    // (on a loaded machine `sha256/` itself may not be there yet when the open returns).
    await until(
      () =>
        existsSync(root) &&
        readdirSync(root).filter((name) => !name.startsWith(".")).length === 256,
    );
    const shard = join(root, hash.slice(0, 2));
    rmSync(shard, { recursive: true, force: true });
    writeFileSync(shard, "not a folder");
    await expect(writer.append([run.output("c1", callSeq, text), run.end()])).rejects.toThrow();
    const spare = await spareOf(store);
    expect(
      readdirSync(root).filter((name) => name.endsWith(".tmp") && join(root, name) !== spare),
    ).toEqual([]);
    await writer.close().catch(() => undefined);
    // Nothing of the refused batch reached the log.
    const session = await store.readSession(sessionId);
    expect(session.events.at(-1)).toMatchObject({ type: "function_call" });
  });

  it("the same payload twice in one batch: one blob, no staged copy left", async () => {
    const { sessionId, writer, run, callSeq } = await openTurn();
    await writer.append([
      run.output("c1", callSeq, output("same")),
      run.call("c2"),
      run.output("c2", callSeq + 2, output("same")),
      run.end(),
    ]);
    await writer.close();
    expect(await blobStoreFiles()).toHaveLength(1);
    const session = await store.readSession(sessionId);
    expect(session.events.filter((event) => event.type === "function_call_output")).toMatchObject([
      { output: output("same") },
      { output: output("same") },
    ]);
  });

  it("a payload already stored compressed: the staged copy is removed and the compressed file made young", async () => {
    const data = Buffer.from(output("compressed"));
    const hash = blobs.put(data, undefined, { compressed: true });
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(blobs.pathOf(hash), old, old);
    const { writer, run, callSeq } = await openTurn();
    await writer.append([run.output("c1", callSeq, output("compressed")), run.end()]);
    await writer.close();
    expect(await blobStoreFiles()).toEqual([`${hash.slice(0, 2)}/${hash.slice(2)}.zst`]);
    expect(Date.now() - statSync(blobs.pathOf(hash)).mtimeMs).toBeLessThan(60_000);
  });

  it("a staged file a killed writer left is removed at the next writer's open in the home; a live writer's is kept", async () => {
    const first = await openTurn();
    await first.writer.append([
      first.run.output("c1", first.callSeq, output("first")),
      first.run.end(),
    ]);
    await first.writer.close();
    const shardRoot = join(temp.home, "blobs", "sha256");
    const killed = join(shardRoot, `.blob.${deadPid()}.0123456789ab.7.tmp`);
    const live = join(shardRoot, `.blob.${process.pid}.0123456789ab.8.tmp`);
    writeFileSync(killed, "what a killed writer had staged of a payload");
    writeFileSync(live, "what a running writer is staging");
    // A new process's store: its first writer's open lists the folder (the shard folders' run).
    const next = createSessionStore({ home: temp.home });
    const { writer } = await openTurnIn(next);
    await writer.close();
    const left = readdirSync(shardRoot).filter((name) => !/^[0-9a-f]{2}$/.test(name));
    expect(left).toEqual([basename(live)]);
    rmSync(live);
  });

  it("a staged file a killed writer left is reclaimed by the sweep, its bytes counted", async () => {
    const { writer, run, callSeq } = await openTurn();
    await writer.append([run.output("c1", callSeq, output("named")), run.end()]);
    await writer.close();
    const left = join(temp.home, "blobs", "sha256", `.blob.${deadPid()}.0123456789ab.7.tmp`);
    writeFileSync(left, "what a killed writer had written of a payload");
    const kind = store.storageKinds().find((entry) => entry.kind === "blobs")!;
    const live = new Set(await store.sessionIds());
    expect((await kind.reclaim(live, { dryRun: true })).bytes).toBe(statSync(left).size);
    await kind.reclaim(live, { dryRun: false });
    expect(await blobStoreFiles()).toHaveLength(1);
    expect((await blobStoreFiles())[0]).toMatch(/^[0-9a-f]{2}\//);
  });

  it("once a blob was staged, open writers keep one spare staged file; the next blob is written into it and a new one made; the last writer's close removes it", async () => {
    const first = await openTurn();
    // A store that has staged no blob keeps no spare.
    expect(await spareOf(store)).toBeUndefined();
    const [, call] = await first.writer.append([
      first.run.output("c1", first.callSeq, output("first")),
      first.run.call("c2"),
    ]);
    const spare = await spareOf(store);
    expect(spare).toMatch(/\/blobs\/sha256\/\.blob\.[^/]+\.tmp$/);
    expect(statSync(spare!).size).toBe(0);
    const spareInode = statSync(spare!).ino;
    const second = await openTurn();
    expect(await spareOf(store)).toBe(spare);
    await first.writer.append([
      first.run.output("c2", call!.seq, output("spare")),
      first.run.end(),
    ]);
    // The spare became the blob; another is made for the next one.
    expect(existsSync(spare!)).toBe(false);
    const next = await spareOf(store);
    expect(next).toBeDefined();
    expect(next).not.toBe(spare);
    await first.writer.close();
    expect(existsSync(next!)).toBe(true);
    await second.writer.close();
    expect(existsSync(next!)).toBe(false);
    expect(await spareOf(store)).toBeUndefined();
    const session = await store.readSession(first.sessionId);
    expect(session.events.at(-2)).toMatchObject({ output: output("spare") });
    const hash = createHash("sha256").update(output("spare")).digest("hex");
    const blob = join(temp.home, "blobs", "sha256", hash.slice(0, 2), hash.slice(2));
    expect(statSync(blob).ino).toBe(spareInode);
    expect(await blobStoreFiles()).toHaveLength(2);
  });

  it("a spare removed meanwhile (by hand, or a sweep) costs nothing: the blob is written afresh", async () => {
    const { sessionId, writer, run, callSeq, spare } = await openTurnWithSpare();
    rmSync(spare);
    await writer.append([run.output("c2", callSeq, output("gone")), run.end()]);
    await writer.close();
    expect(await blobStoreFiles()).toHaveLength(2);
    const session = await store.readSession(sessionId);
    expect(session.events.at(-2)).toMatchObject({ output: output("gone") });
  });

  it("a spare half an hour old is not written into: it is removed and the blob staged in a new file", async () => {
    const { sessionId, writer, run, callSeq, spare } = await openTurnWithSpare();
    // Held open: the spare's inode is not reused, and its links tell where it went.
    const held = openSync(spare, "r");
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now + 31 * 60_000);
    try {
      await writer.append([run.output("c2", callSeq, output("old spare")), run.end()]);
    } finally {
      clock.mockRestore();
    }
    expect(existsSync(spare)).toBe(false);
    await writer.close();
    expect(await blobStoreFiles()).toHaveLength(2);
    // Removed, not renamed into place: empty and named nowhere.
    expect(fstatSync(held)).toMatchObject({ nlink: 0, size: 0 });
    closeSync(held);
    const session = await store.readSession(sessionId);
    expect(session.events.at(-2)).toMatchObject({ output: output("old spare") });
  });
});
