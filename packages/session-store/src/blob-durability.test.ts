import * as fs from "node:fs";
import { dirname } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore } from "./index";

/** Paths fsynced so far (files and folders), and what was known synced when a line named a blob. */
const synced = new Set<string>();
const seen: { hash: string; synced: Set<string> }[] = [];

// Track fsyncs by path (sync and async, descriptors and handles) and every write of a log line.
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const paths = new Map<number, string>();
  const renamed = new Map<string, string>();
  const openSync = (path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
    paths.set(fd, String(path));
    return fd;
  };
  const fsyncSync = (fd: number) => {
    actual.fsyncSync(fd);
    synced.add(paths.get(fd) ?? "");
  };
  const writeSync = (fd: number, data: Uint8Array, ...rest: unknown[]) => {
    const text = Buffer.from(data).toString("utf8");
    for (const match of text.matchAll(/"blob":"([0-9a-f]{64})"/g)) {
      seen.push({ hash: match[1]!, synced: new Set(synced) });
    }
    return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  };
  const open = async (path: fs.PathLike, ...rest: unknown[]) => {
    const handle = await (
      actual.promises.open as (...args: unknown[]) => Promise<fs.promises.FileHandle>
    )(path, ...rest);
    const sync = handle.sync.bind(handle);
    handle.sync = async () => {
      await sync();
      synced.add(String(path));
      // A file renamed before its fsync is fsynced under its new name.
      const to = renamed.get(String(path));
      if (to !== undefined) synced.add(to);
    };
    return handle;
  };
  const renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    actual.renameSync(from, to);
    renamed.set(String(from), String(to));
    // A file fsynced under its temp name is fsynced under its final one.
    if (synced.has(String(from))) synced.add(String(to));
  };
  return {
    ...actual,
    openSync,
    fsyncSync,
    writeSync,
    renameSync,
    promises: { ...actual.promises, open },
  };
});

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
  synced.clear();
  seen.length = 0;
});
afterEach(() => temp.cleanup());

describe("blob durability", () => {
  it("a writer's blob (file and folder) is fsynced before the log line naming it is written, mid-turn too", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    // No turn/end: the log itself is not fsynced, but its line may reach the disk any time.
    await writer.append([run.start(), run.user("y".repeat(5000))]);
    expect(seen).toHaveLength(1);
    const { hash, synced: before } = seen[0]!;
    const blob = `${temp.home}/blobs/sha256/${hash.slice(0, 2)}/${hash.slice(2)}`;
    expect(fs.existsSync(blob)).toBe(true);
    expect(before.has(blob)).toBe(true);
    expect(before.has(dirname(blob))).toBe(true);
    await writer.close();
  });

  it("a new log's seed blobs are fsynced before the log is created", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const run = drafts(uuidv7());
    await store.create({ cwd: temp.root, seed: [run.system("z".repeat(5000))] });
    const blobs = [...synced].filter((path) => path.includes("/blobs/sha256/"));
    expect(blobs.length).toBeGreaterThanOrEqual(2);
  });
});
