import { createHash } from "node:crypto";
import { readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import { DELTA_MAX_BYTES, DeltaPlanner } from "./blob-delta";
import type { BlobStore } from "./blob-store";
import { BlobReadError, createSessionStore, type SessionStore } from "./index";
import { compressBytes } from "./zstd";

let temp: TempDirectory;
let store: SessionStore;
let blobs: BlobStore;
beforeEach(() => ({ temp, store, blobs } = tempStore()));
afterEach(() => temp.cleanup());

const hashOf = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const twoHoursAgo = () => new Date(Date.now() - 2 * 3600_000);

/** About 200 KB of lines; `run` changes a few of them. */
function output(run: number): Buffer {
  const lines: string[] = [];
  for (let index = 0; index < 3000; index += 1) {
    const token = createHash("sha1").update(`${index}`).digest("hex").slice(0, 12);
    lines.push(`src/file-${index}.ts ${token} ok in ${index % 50 === 0 ? run : index % 97}ms`);
  }
  return Buffer.from(lines.join("\n"));
}

/** Blob `base` stored as a plain frame and blob `delta` as a delta against it, both by compact's path. */
function storeDelta(): { base: string; delta: string; baseData: Buffer; deltaData: Buffer } {
  const planner = new DeltaPlanner({
    get: (hash) => blobs.get(hash),
    isDelta: (hash) => blobs.isDelta(hash),
  });
  const baseData = output(0);
  const deltaData = output(1);
  const plan = { planner, mediaType: "text/plain" };
  const base = blobs.put(baseData, undefined, { compressed: true, plan });
  const delta = blobs.put(deltaData, undefined, { compressed: true, plan });
  expect(blobs.baseOf(delta)).toBe(base);
  return { base, delta, baseData, deltaData };
}

async function reclaimBlobs(): Promise<void> {
  const kind = store.storageKinds().find((entry) => entry.kind === "blobs")!;
  await kind.reclaim(new Set(await store.sessionIds()), { dryRun: false });
}

/** Patches the content size of the zstd frame at `frame` in `stored` to 4 GiB - 1 (a 4-byte field) or 2^40 (8 bytes). */
function setDeclaredSize(stored: Buffer, frame: number): void {
  const descriptor = stored[frame + 4]!;
  const singleSegment = (descriptor >> 5) & 1;
  const at = frame + 5 + (singleSegment ? 0 : 1) + ([0, 1, 2, 4][descriptor & 3] ?? 0);
  const flag = descriptor >> 6;
  expect(flag === 2 || flag === 3).toBe(true);
  if (flag === 2) stored.writeUInt32LE(0xffffffff, at);
  else stored.writeBigUInt64LE(1n << 40n, at);
}

function readErrorOf(hash: string): BlobReadError {
  try {
    blobs.get(hash);
  } catch (caught) {
    if (BlobReadError.isInstance(caught)) return caught;
    throw caught;
  }
  throw new Error(`blob ${hash} read`);
}

describe("delta blobs under attack", () => {
  it("the sweep keeps the base of a delta it keeps for its age (written by a compact whose log is not on disk yet)", async () => {
    const { base, delta, deltaData } = storeDelta();
    // The base was on disk long before (no log names it yet); the delta was just written.
    utimesSync(blobs.pathOf(base), twoHoursAgo(), twoHoursAgo());
    await reclaimBlobs();
    expect(blobs.has(delta)).toBe(true);
    expect(blobs.get(delta).equals(deltaData)).toBe(true);
  });

  it("compact that reuses an old unreferenced compressed blob makes it young again (the sweep's age guard covers it until the log names it)", async () => {
    const { base } = storeDelta();
    const old = twoHoursAgo();
    utimesSync(blobs.pathOf(base), old, old);
    // A compact whose log names `base` finds it already compressed.
    expect(blobs.compress(base)).toBeUndefined();
    expect(Date.now() - statSync(blobs.pathOf(base)).mtimeMs).toBeLessThan(60_000);
    await reclaimBlobs();
    expect(blobs.has(base)).toBe(true);
  });

  it("a writer whose blob dedupes onto an old unreferenced compressed file makes it young again", async () => {
    const { delta, deltaData } = storeDelta();
    utimesSync(blobs.pathOf(delta), twoHoursAgo(), twoHoursAgo());
    await blobs.syncAll(blobs.writeAll(new Map([[delta, deltaData]])));
    await reclaimBlobs();
    expect(blobs.get(delta).equals(deltaData)).toBe(true);
  });

  it("a delta whose frame declares more than a delta may hold is BLOB_CORRUPT, read without allocating it", () => {
    const { delta } = storeDelta();
    const path = blobs.pathOf(delta);
    const stored = readFileSync(path);
    setDeclaredSize(stored, 8 + 76);
    writeFileSync(path, stored);
    const error = readErrorOf(delta);
    expect(error.code).toBe("BLOB_CORRUPT");
    expect(error.message).toContain(`more than ${DELTA_MAX_BYTES}`);
  });

  it("a base whose frame declares more than a base may hold is BLOB_CORRUPT naming both blobs, not allocated", () => {
    const { base, delta } = storeDelta();
    const path = blobs.pathOf(base);
    const stored = readFileSync(path);
    setDeclaredSize(stored, 0);
    writeFileSync(path, stored);
    const error = readErrorOf(delta);
    expect(error.code).toBe("BLOB_CORRUPT");
    expect(error.message).toContain(`a delta against blob ${base}, which is damaged`);
    expect(error.message).toContain(`more than ${DELTA_MAX_BYTES}`);
  });

  it("hostile headers: itself as base, a delta as base, not 64 hex, cut inside the header: BLOB_CORRUPT or BLOB_MISSING, never a hang", () => {
    const { base, delta } = storeDelta();
    const path = blobs.pathOf(delta);
    const stored = readFileSync(path);
    const named = (hash: string) => {
      const copy = Buffer.from(stored);
      copy.write(hash, 8 + 12, "latin1");
      return copy;
    };
    writeFileSync(path, named(delta));
    expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
    writeFileSync(path, named("0".repeat(64)));
    expect(readErrorOf(delta).code).toBe("BLOB_MISSING");
    writeFileSync(path, named(`${"g".repeat(63)}0`));
    expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
    writeFileSync(path, named(base.toUpperCase()));
    expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
    for (const cut of [5, 8, 40, 83, 84, 90]) {
      writeFileSync(path, stored.subarray(0, cut));
      expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
    }
    // The base made a delta against the delta: a cycle of two, read as a delta-as-base.
    const basePath = blobs.pathOf(base);
    writeFileSync(path, stored);
    const cycle = Buffer.from(stored);
    cycle.write(delta, 8 + 12, "latin1");
    writeFileSync(basePath, cycle);
    expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
    expect(readErrorOf(base).code).toBe("BLOB_CORRUPT");
    unlinkSync(basePath);
    writeFileSync(basePath, compressBytes(Buffer.from("x")));
    expect(readErrorOf(delta).code).toBe("BLOB_CORRUPT");
  });

  it("the dry run's estimate is what compact then writes, deltas included (outputs inline, one already stored by another session)", async () => {
    const { base } = storeDelta();
    utimesSync(blobs.pathOf(base), twoHoursAgo(), twoHoursAgo());
    const inline = createSessionStore({ home: temp.home, blobThreshold: Number.POSITIVE_INFINITY });
    const { sessionId } = await inline.create({ cwd: temp.root });
    for (const [index, text] of [output(0), output(2), output(3)].entries()) {
      const run = drafts(uuidv7());
      await inline.append(sessionId, [run.start(), run.user("go"), run.call(`c${index}`)]);
      const [call] = (await inline.readSession(sessionId)).events.slice(-1);
      await inline.append(sessionId, [
        run.output(`c${index}`, call!.seq, text.toString()),
        run.end(),
      ]);
    }
    const dry = await store.compact(sessionId, { dryRun: true });
    const real = await store.compact(sessionId);
    expect(real.action).toBe("compressed");
    expect(dry.after).toBe(real.after);
    expect(blobs.baseOf(hashOf(output(3)))).toBe(base);
    const session = await store.readSession(sessionId);
    expect(
      session.events.flatMap((event) =>
        event.type === "function_call_output" ? [event.output] : [],
      ),
    ).toEqual([output(0), output(2), output(3)].map(String));
  });
});
