import type * as fs from "node:fs";
import { readFileSync } from "node:fs";
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
  | { kind: "fsync"; path: string }
  | { kind: "line"; hash: string; blobWritten: boolean; blobSynced: boolean };
const steps: Step[] = [];
const blobPathOf = { home: "" };
/** When set, fsyncs of blob files fail with EIO (a disk that lost the write). */
const failBlobSync = { on: false };

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
  const fsyncSync = (fd: number) => {
    actual.fsyncSync(fd);
    record(paths.get(fd) ?? "");
  };
  const fsync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    actual.fsync(fd, (error) => {
      if (error === null) record(paths.get(fd) ?? "");
      callback(error);
    });
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
  const open = async (path: fs.PathLike, ...rest: unknown[]) => {
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
    // A file fsynced under its temp name is fsynced under its final one.
    if (fsynced(String(from))) steps.push({ kind: "fsync", path: String(to) });
  };
  return {
    ...actual,
    openSync,
    fsyncSync,
    fsync,
    writeSync,
    renameSync,
    promises: { ...actual.promises, open },
  };
});

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
  blobPathOf.home = temp.home;
  steps.length = 0;
  failBlobSync.on = false;
});
afterEach(() => temp.cleanup());

/** Index of the first fsync of `path` at or after `from`, -1 if none. */
function fsyncIndex(path: string, from = 0): number {
  return steps.findIndex(
    (step, index) => index >= from && step.kind === "fsync" && step.path === path,
  );
}

describe("blob durability", () => {
  it('"turn": a blob is written before its line, and fsynced (file, folder, new folders\' parents) before the log at turn/end', async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    const log = store.pathOf(sessionId);
    steps.length = 0;
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    const line = steps.find((step) => step.kind === "line");
    expect(line).toMatchObject({ kind: "line", blobWritten: true });
    // Mid-turn the log is not fsynced (the line is not durable yet, so neither need the blob be).
    expect(fsyncIndex(log)).toBe(-1);
    await writer.append([run.end()]);
    const blob = rawBlobPath((line as { hash: string }).hash);
    const logSync = fsyncIndex(log);
    expect(logSync).toBeGreaterThan(-1);
    // Blobs then log: the file, its folder, and the folders made for it (a new name each).
    for (const path of [blob, dirname(blob), dirname(dirname(blob)), `${temp.home}/blobs`]) {
      const index = fsyncIndex(path);
      expect(index, path).toBeGreaterThan(-1);
      expect(index, path).toBeLessThan(logSync);
    }
    await writer.close();
  });

  it('"turn": sync() and close() in an open turn fsync its blobs before the log', async () => {
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
      const logSync = fsyncIndex(log);
      expect(logSync, end).toBeGreaterThan(-1);
      expect(fsyncIndex(rawBlobPath(hash)), end).toBeGreaterThan(-1);
      expect(fsyncIndex(rawBlobPath(hash)), end).toBeLessThan(logSync);
      expect(fsyncIndex(dirname(rawBlobPath(hash))), end).toBeLessThan(logSync);
      if (end === "sync") {
        await writer.append([run.end()]);
        await writer.close();
      }
    }
  });

  it("a blob another writer stored and may not have fsynced is fsynced again before a line naming it becomes durable", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    await writer.append([run.start(), run.user("same ".repeat(1000))]);
    await writer.append([run.end()]);
    steps.length = 0;
    const again = drafts(uuidv7());
    await writer.append([again.start(), again.user("same ".repeat(1000)), again.end()]);
    const { hash } = steps.find((step) => step.kind === "line") as { hash: string };
    const logSync = fsyncIndex(store.pathOf(sessionId));
    expect(fsyncIndex(rawBlobPath(hash))).toBeGreaterThan(-1);
    expect(fsyncIndex(rawBlobPath(hash))).toBeLessThan(logSync);
    await writer.close();
  });

  it('"turn": a blob fsync that fails is the turn end\'s error, and the log is not fsynced after it', async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    failBlobSync.on = true;
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    steps.length = 0;
    await expect(writer.append([run.end()])).rejects.toThrow(/i\/o error|EIO|disk/i);
    expect(fsyncIndex(store.pathOf(sessionId))).toBe(-1);
    // The turn/end line was cut back off: the turn stays unfinished on disk.
    expect(readFileSync(store.pathOf(sessionId), "utf8")).not.toContain("turn/end");
    await writer.close();
  });

  it('"every-event": a blob (file and folder) is fsynced before the line naming it is written', async () => {
    const store = createSessionStore({
      home: temp.home,
      blobThreshold: 1000,
      durability: "every-event",
    });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    expect(steps.filter((step) => step.kind === "line")).toEqual([
      expect.objectContaining({ blobWritten: true, blobSynced: true }),
    ]);
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
