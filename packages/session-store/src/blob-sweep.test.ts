/**
 * The unreferenced-blob sweep against a writer in another process that reuses an old blob: the
 * writer makes the file young (`refresh`) and then writes the line naming it, and that can fall
 * between the sweep judging the file old and removing it. The sweep sets the file aside, judges
 * it again, and puts it back when it is young; a sweep killed in between leaves it aside, and the
 * next one puts it back.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, renameSync, statSync, utimesSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deadPid, drafts, type TempDirectory, tempStore } from "../test/helpers";
import type { BlobStore } from "./blob-store";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
let blobs: BlobStore;
beforeEach(() => ({ temp, store, blobs } = tempStore()));
afterEach(() => temp.cleanup());

const HOUR = 3600_000;
const twoHoursAgo = () => new Date(Date.now() - 2 * HOUR);
const data = Buffer.from(`${"a tool's output, long enough to be a blob\n".repeat(2000)}`);
const hash = createHash("sha256").update(data).digest("hex");

/** Blob `data` stored compressed (compact's form), two hours old and named by no log. */
function oldUnnamedBlob(): string {
  blobs.put(data, undefined, { compressed: true });
  const path = blobs.pathOf(hash);
  utimesSync(path, twoHoursAgo(), twoHoursAgo());
  return path;
}

async function sweep(): Promise<number> {
  const kind = store.storageKinds().find((entry) => entry.kind === "blobs")!;
  return (await kind.reclaim(new Set(await store.sessionIds()), { dryRun: false })).bytes;
}

function filesBeside(path: string): string[] {
  return readdirSync(dirname(path));
}

describe("the blob sweep and a writer that reuses an old blob", () => {
  it("a blob the sweep judged old that a writer reused before its removal stays, under its name", async () => {
    const path = oldUnnamedBlob();
    // Judged: old, and no log names it.
    expect(Date.now() - statSync(path).mtimeMs).toBeGreaterThan(HOUR);
    // Then another process's writer dedupes onto it (and will write the line naming it).
    await blobs.syncAll(blobs.writeAll(new Map([[hash, data]])));
    // Then the sweep removes what it judged.
    expect(blobs.removeUnlessYoung(path, HOUR)).toBe(false);
    expect(blobs.get(hash).equals(data)).toBe(true);
    expect(filesBeside(path)).toEqual([basename(path)]);
  });

  it("a blob still old when set aside is removed, and nothing is left beside it", async () => {
    const path = oldUnnamedBlob();
    expect(blobs.removeUnlessYoung(path, HOUR)).toBe(true);
    expect(blobs.has(hash)).toBe(false);
    expect(filesBeside(path)).toEqual([]);
    // A file gone meanwhile (another sweep) is nothing to remove.
    expect(blobs.removeUnlessYoung(path, HOUR)).toBe(false);
  });

  it("the sweep removes an old unnamed blob through the set-aside and counts its bytes", async () => {
    const path = oldUnnamedBlob();
    const bytes = statSync(path).size;
    expect(await sweep()).toBe(bytes);
    expect(blobs.has(hash)).toBe(false);
    expect(filesBeside(path)).toEqual([]);
  });

  it("a sweep killed with a blob set aside: the next sweep puts it back, and a log that names it keeps it", async () => {
    const path = oldUnnamedBlob();
    // A writer named it since (the line is on disk); the sweep that set it aside was killed.
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    await store.append(sessionId, [run.start(), run.user("go"), run.call("c1")]);
    await store.append(sessionId, [run.output("c1", 3, data.toString()), run.end()]);
    expect(blobs.has(hash)).toBe(true);
    utimesSync(path, twoHoursAgo(), twoHoursAgo());
    const aside = join(dirname(path), `.swept-${basename(path)}.${deadPid()}.0123456789ab.1.tmp`);
    renameSync(path, aside);
    expect(await sweep()).toBe(0);
    expect(existsSync(aside)).toBe(false);
    expect(filesBeside(path)).toEqual([basename(path)]);
    const read = [];
    for await (const event of store.read(sessionId)) read.push(event.event);
    expect(read.find((event) => event.type === "function_call_output")).toMatchObject({
      output: data.toString(),
    });
  });

  it("set aside and named by no log: put back, then removed as any old unnamed blob", async () => {
    const path = oldUnnamedBlob();
    const aside = join(dirname(path), `.swept-${basename(path)}.${deadPid()}.0123456789ab.1.tmp`);
    renameSync(path, aside);
    await sweep();
    expect(blobs.has(hash)).toBe(false);
    expect(filesBeside(path)).toEqual([]);
  });
});
