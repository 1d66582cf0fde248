import type * as fs from "node:fs";
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore } from "./index";

/**
 * What reached the file system, in order: every fsync (by path: files, folders, the log) and
 * every log line that names a blob, with whether the blob's file was there when it was written.
 */
type Step =
  | { kind: "fsync" | "fsync-start"; path: string }
  | { kind: "line"; hash: string; blobWritten: boolean; blobSynced: boolean }
  | { kind: "ack" };
const steps: Step[] = [];
const blobPathOf = { home: "" };
/** When set, fsyncs of blob files fail with EIO (a disk that lost the write). */
const failBlobSync = { on: false };
/** While `held`, fsyncs of `blobs` and what it holds wait (a slow disk) until `release` is called. */
const blobGate: { held: Promise<void> | undefined; release: () => void } = {
  held: undefined,
  release: () => {},
};

function holdBlobSyncs(): void {
  blobGate.held = new Promise((resolve) => {
    blobGate.release = () => {
      blobGate.held = undefined;
      resolve();
    };
  });
}

function rawBlobPath(hash: string): string {
  return `${blobPathOf.home}/blobs/sha256/${hash.slice(0, 2)}/${hash.slice(2)}`;
}

function fsynced(path: string): boolean {
  return steps.some((step) => step.kind === "fsync" && step.path === path);
}

// Track fsyncs by path (sync and async, descriptors and handles) and every write of a log line.
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const paths = new Map<number, string>();
  const renamed = new Map<string, string>();
  const record = (path: string) => {
    steps.push({ kind: "fsync", path });
    const to = renamed.get(path);
    if (to !== undefined) steps.push({ kind: "fsync", path: to });
  };
  const openSync = (path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
    paths.set(fd, String(path));
    return fd;
  };
  // A writer's spare staged file is made on the thread pool.
  const open = (path: fs.PathLike, ...rest: unknown[]) => {
    const callback = rest.pop() as (error: NodeJS.ErrnoException | null, fd: number) => void;
    (actual.open as (...args: unknown[]) => void)(
      path,
      ...rest,
      (error: NodeJS.ErrnoException | null, fd: number) => {
        if (error === null) paths.set(fd, String(path));
        callback(error, fd);
      },
    );
  };
  const fsyncSync = (fd: number) => {
    actual.fsyncSync(fd);
    record(paths.get(fd) ?? "");
  };
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const path = paths.get(fd) ?? "";
    steps.push({ kind: "fsync-start", path: renamed.get(path) ?? path });
    const inBlobs = path.includes("/blobs/") || path.endsWith("/blobs");
    if (failBlobSync.on && path.includes("/blobs/sha256/")) {
      const error = Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO", errno: -5 });
      setImmediate(() => callback(error));
      return;
    }
    const run = () =>
      actual.fsync(fd, (error) => {
        if (error === null) record(path);
        callback(error);
      });
    if (inBlobs && blobGate.held !== undefined) void blobGate.held.then(run);
    else run();
  };
  const writeSync = (fd: number, data: Uint8Array, ...rest: unknown[]) => {
    const text = Buffer.from(data).toString("utf8");
    for (const match of text.matchAll(/"blob":"([0-9a-f]{64})"/g)) {
      const path = rawBlobPath(match[1]!);
      steps.push({
        kind: "line",
        hash: match[1]!,
        blobWritten: actual.existsSync(path),
        blobSynced: fsynced(path) && fsynced(dirname(path)),
      });
    }
    return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  };
  const openPromise = async (path: fs.PathLike, ...rest: unknown[]) => {
    const handle = await (
      actual.promises.open as (...args: unknown[]) => Promise<fs.promises.FileHandle>
    )(path, ...rest);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      if (failBlobSync.on && String(path).includes("/blobs/sha256/")) {
        throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO", errno: -5 });
      }
      await sync();
      record(String(path));
    };
    return handle;
  };
  const renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    actual.renameSync(from, to);
    renamed.set(String(from), String(to));
    // A file fsynced under its temp name is fsynced under its final one; a writer's blob file
    // starts its fsync while it is still staged under a temp name (before its hash is known).
    if (steps.some((step) => step.kind === "fsync-start" && step.path === String(from))) {
      steps.push({ kind: "fsync-start", path: String(to) });
    }
    if (fsynced(String(from))) steps.push({ kind: "fsync", path: String(to) });
  };
  return {
    ...actual,
    openSync,
    open,
    fsyncSync,
    fsync,
    writeSync,
    renameSync,
    promises: { ...actual.promises, open: openPromise },
  };
});

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
  blobPathOf.home = temp.home;
  steps.length = 0;
  failBlobSync.on = false;
  blobGate.release();
});

/** Index of the first step of `kind` for `path` at or after `from`, -1 if none. */
function stepIndex(kind: "fsync" | "fsync-start", path: string, from = 0): number {
  return steps.findIndex(
    (step, index) => index >= from && step.kind === kind && "path" in step && step.path === path,
  );
}

/** Lets the thread pool and the event loop run until `done()` holds (or 5 s pass). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
}
afterEach(() => temp.cleanup());

/** Index of the first fsync of `path` at or after `from`, -1 if none. */
function fsyncIndex(path: string, from = 0): number {
  return steps.findIndex(
    (step, index) => index >= from && step.kind === "fsync" && step.path === path,
  );
}

describe("blob durability", () => {
  it('"turn": a blob is written before its line; at turn/end its fsyncs (file, folder) and the log\'s run together, and the append is acknowledged only when all ended', async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    steps.length = 0;
    const writer = await store.openWriter(sessionId);
    // The writer's open makes the 256 shard folders (in the background) and fsyncs the folders
    // naming them: a blob's write then makes no folder and fsyncs no parent.
    const shards = `${temp.home}/blobs/sha256`;
    const parents = [shards, `${temp.home}/blobs`, temp.home];
    await until(() => parents.every(fsynced));
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const path of parents) expect(fsynced(path), path).toBe(true);
    expect(readdirSync(shards)).toHaveLength(256);
    const log = store.pathOf(sessionId);
    steps.length = 0;
    // The blob's fsyncs are held: the disk has not finished them when the turn ends.
    holdBlobSyncs();
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    const line = steps.find((step) => step.kind === "line");
    expect(line).toMatchObject({ kind: "line", blobWritten: true });
    // Mid-turn the log is not fsynced (the line is not durable yet, so neither need the blob be).
    expect(stepIndex("fsync-start", log)).toBe(-1);
    let acknowledged = false;
    const ending = writer.append([run.end()]).then(() => {
      acknowledged = true;
      steps.push({ kind: "ack" });
    });
    // The log's fsync starts while the blob's are still running: not one after the other.
    await until(() => stepIndex("fsync", log) > -1);
    expect(stepIndex("fsync", log)).toBeGreaterThan(-1);
    const blob = rawBlobPath((line as { hash: string }).hash);
    const paths = [blob, dirname(blob)];
    // The file's fsync started while it was staged (under a temp name in the store's folder),
    // before its bytes were hashed and it was renamed into its shard.
    const staged = steps.findIndex(
      (step) =>
        step.kind === "fsync-start" && /\/blobs\/sha256\/\.blob\.[^/]*\.tmp$/.test(step.path),
    );
    expect(staged).toBeGreaterThan(-1);
    expect(staged).toBeLessThan(stepIndex("fsync-start", blob));
    for (const path of paths) {
      expect(stepIndex("fsync-start", path), path).toBeGreaterThan(-1);
      expect(stepIndex("fsync", path), path).toBe(-1);
    }
    for (const path of [dirname(dirname(blob)), `${temp.home}/blobs`]) {
      expect(stepIndex("fsync-start", path), path).toBe(-1);
    }
    // Nothing is acknowledged before every fsync ended.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged).toBe(false);
    blobGate.release();
    await ending;
    const ack = steps.findIndex((step) => step.kind === "ack");
    for (const path of [...paths, log]) {
      expect(stepIndex("fsync", path), path).toBeGreaterThan(-1);
      expect(stepIndex("fsync", path), path).toBeLessThan(ack);
    }
    await writer.close();
  });

  it("an append with lines after a turn's end (an import's turns in one batch) makes its blobs durable before it writes a line", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const writer = await store.openWriter(sessionId);
    const first = drafts(uuidv7());
    // A blob written mid-turn by an earlier append, its fsync still running (held).
    holdBlobSyncs();
    await writer.append([first.start(), first.user("earlier ".repeat(1000))]);
    const second = drafts(uuidv7());
    steps.length = 0;
    const appending = writer.append([
      first.user("x".repeat(5000)),
      first.end(),
      second.start(),
      second.user("z".repeat(5000)),
      second.end(),
    ]);
    // No line is written while a blob's fsync (the earlier one's, or its own) is running.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(steps.filter((step) => step.kind === "line")).toEqual([]);
    blobGate.release();
    await appending;
    const earlier = readFileSync(store.pathOf(sessionId), "utf8").split("\n")[2]!;
    const earlierBlob = rawBlobPath(/"blob":"([0-9a-f]{64})"/.exec(earlier)![1]!);
    const lines = steps.filter((step) => step.kind === "line");
    expect(lines).toHaveLength(2);
    expect(lines).toEqual([
      expect.objectContaining({ blobWritten: true, blobSynced: true }),
      expect.objectContaining({ blobWritten: true, blobSynced: true }),
    ]);
    const firstLine = steps.findIndex((step) => step.kind === "line");
    expect(stepIndex("fsync", earlierBlob)).toBeGreaterThan(-1);
    expect(stepIndex("fsync", earlierBlob)).toBeLessThan(firstLine);
    await writer.close();
  });

  it('"turn": sync() and close() in an open turn return once its blobs and the log are fsynced', async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const log = store.pathOf(sessionId);
    for (const end of ["sync", "close"] as const) {
      const run = drafts(uuidv7());
      const writer = await store.openWriter(sessionId);
      steps.length = 0;
      await writer.append([run.start(), run.user(`${end} `.repeat(3000))]);
      const { hash } = steps.find((step) => step.kind === "line") as { hash: string };
      if (end === "sync") await writer.sync();
      else await writer.close();
      steps.push({ kind: "ack" });
      const ack = steps.findIndex((step) => step.kind === "ack");
      for (const path of [log, rawBlobPath(hash), dirname(rawBlobPath(hash))]) {
        expect(fsyncIndex(path), `${end} ${path}`).toBeGreaterThan(-1);
        expect(fsyncIndex(path), `${end} ${path}`).toBeLessThan(ack);
      }
      if (end === "sync") {
        await writer.append([run.end()]);
        await writer.close();
      }
    }
  });

  it("a blob another writer stored and may not have fsynced is fsynced again before a line naming it is acknowledged", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    await writer.append([run.start(), run.user("same ".repeat(1000))]);
    await writer.append([run.end()]);
    steps.length = 0;
    const again = drafts(uuidv7());
    await writer.append([again.start(), again.user("same ".repeat(1000)), again.end()]);
    steps.push({ kind: "ack" });
    const { hash } = steps.find((step) => step.kind === "line") as { hash: string };
    const ack = steps.findIndex((step) => step.kind === "ack");
    expect(fsyncIndex(rawBlobPath(hash))).toBeGreaterThan(-1);
    expect(fsyncIndex(rawBlobPath(hash))).toBeLessThan(ack);
    await writer.close();
  });

  it("\"turn\": a blob fsync that fails is the turn end's error, and the turn's end is cut back off the log", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    failBlobSync.on = true;
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    steps.length = 0;
    await expect(writer.append([run.end()])).rejects.toThrow(/i\/o error|EIO|disk/i);
    // The turn/end line was cut back off: the turn stays unfinished on disk.
    expect(readFileSync(store.pathOf(sessionId), "utf8")).not.toContain("turn/end");
    await writer.close();
  });

  it("an append that ends the turn starts its blobs' fsyncs with the log's, once its lines are written (one journal commit), and is acknowledged when all ended", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    await writer.append([run.start()]);
    const log = store.pathOf(sessionId);
    steps.length = 0;
    await writer.append([run.user("z".repeat(5000)), run.end()]);
    steps.push({ kind: "ack" });
    const { hash } = steps.find((step) => step.kind === "line") as { hash: string };
    const line = steps.findIndex((step) => step.kind === "line");
    const ack = steps.findIndex((step) => step.kind === "ack");
    const blob = rawBlobPath(hash);
    // No fsync of any kind started before the lines were written.
    expect(steps.slice(0, line).filter((step) => step.kind === "fsync-start")).toEqual([]);
    for (const path of [blob, dirname(blob), log]) {
      expect(stepIndex("fsync-start", path), path).toBeGreaterThan(line);
      expect(fsyncIndex(path), path).toBeGreaterThan(-1);
      expect(fsyncIndex(path), path).toBeLessThan(ack);
    }
    await writer.close();
  });

  it('"every-event": each append returns once its blobs (file and folder) and the log are fsynced, started together', async () => {
    const store = createSessionStore({
      home: temp.home,
      blobThreshold: 1000,
      durability: "every-event",
    });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    const log = store.pathOf(sessionId);
    steps.length = 0;
    holdBlobSyncs();
    let acknowledged = false;
    const appending = writer.append([run.start(), run.user("y".repeat(5000))]).then(() => {
      acknowledged = true;
      steps.push({ kind: "ack" });
    });
    await until(() => stepIndex("fsync", log) > -1);
    expect(stepIndex("fsync", log)).toBeGreaterThan(-1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged).toBe(false);
    blobGate.release();
    await appending;
    const { hash } = steps.find((step) => step.kind === "line") as { hash: string };
    const ack = steps.findIndex((step) => step.kind === "ack");
    for (const path of [rawBlobPath(hash), dirname(rawBlobPath(hash)), log]) {
      expect(fsyncIndex(path), path).toBeGreaterThan(-1);
      expect(fsyncIndex(path), path).toBeLessThan(ack);
    }
    await writer.close();
  });

  it("a new log's seed blobs (file, folder, new folders' parents) are fsynced before the log is created", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const run = drafts(uuidv7());
    const { sessionId } = await store.create({
      cwd: temp.root,
      seed: [run.system("z".repeat(5000))],
    });
    const line = readFileSync(store.pathOf(sessionId), "utf8").split("\n")[1]!;
    const blob = rawBlobPath(/"blob":"([0-9a-f]{64})"/.exec(line)![1]!);
    const logSync = steps.findIndex(
      (step) => step.kind === "fsync" && step.path.includes(`${temp.home}/sessions`),
    );
    for (const path of [blob, dirname(blob), dirname(dirname(blob)), `${temp.home}/blobs`]) {
      expect(fsyncIndex(path), path).toBeGreaterThan(-1);
      expect(fsyncIndex(path), path).toBeLessThan(logSync);
    }
  });

  it("an import's blobs (written unsynced) and their new folders are fsynced by syncLogs", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const run = drafts(uuidv7());
    const { sessionId } = await store.create({
      cwd: temp.root,
      seed: [run.system("w".repeat(5000))],
      durable: false,
    });
    expect(fsyncIndex(`${temp.home}/blobs`)).toBe(-1);
    await store.syncLogs([sessionId]);
    const line = readFileSync(store.pathOf(sessionId), "utf8").split("\n")[1]!;
    const blob = rawBlobPath(/"blob":"([0-9a-f]{64})"/.exec(line)![1]!);
    for (const path of [blob, dirname(blob), dirname(dirname(blob)), `${temp.home}/blobs`]) {
      expect(fsyncIndex(path), path).toBeGreaterThan(-1);
    }
  });
});
