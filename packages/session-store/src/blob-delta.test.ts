import { createHash } from "node:crypto";
import {
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, readError, type TempDirectory, tempStore } from "../test/helpers";
import type { BlobStore } from "./blob-store";
import { BlobReadError, type SessionStore } from "./index";
import { compressBytes } from "./zstd";

let temp: TempDirectory;
let store: SessionStore;
let blobs: BlobStore;
beforeEach(() => ({ temp, store, blobs } = tempStore()));
afterEach(() => temp.cleanup());

/**
 * A build log of about 400 KB: `run` changes a few lines (the timings of a re-run), the rest is
 * what the same build printed before. Each line carries a pseudo-random token, so a log compressed
 * alone keeps a good part of its size.
 */
function buildLog(run: number, seed = 1): string {
  const lines: string[] = [];
  for (let index = 0; index < 5000; index += 1) {
    const token = createHash("sha1").update(`${seed}:${index}`).digest("hex").slice(0, 12);
    const took = index % 50 === 0 ? `${run * 3 + index}ms` : `${index % 97}ms`;
    lines.push(`src/module-${index % 211}/file-${index}.ts ${token} ok in ${took}`);
  }
  return lines.join("\n");
}

/** Appends one turn whose tool output is `output`; the output event's seq. */
async function appendOutput(sessionId: string, output: string): Promise<number> {
  const runId = uuidv7();
  const run = drafts(runId);
  const callId = `call_${runId}`;
  const opened = await store.append(sessionId, [run.start(), run.user("build"), run.call(callId)]);
  const [event] = await store.append(sessionId, [run.output(callId, opened[2]!.seq, output)]);
  await store.append(sessionId, [run.end()]);
  return event!.seq;
}

const hashOf = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Session 1 holds a build log and its re-run (compacted: the re-run a delta); session 2 the re-run only. */
async function sharedDelta() {
  const first = buildLog(0);
  const again = buildLog(1);
  const { sessionId: one } = await store.create({ cwd: temp.root });
  await appendOutput(one, first);
  await appendOutput(one, again);
  await store.compact(one);
  const { sessionId: two } = await store.create({ cwd: temp.root });
  const seq = await appendOutput(two, again);
  return { one, two, seq, base: hashOf(first), delta: hashOf(again), again };
}

describe("delta blobs", () => {
  it("compact stores a re-run's output as a delta against the session's earlier one: far smaller, every read exact", async () => {
    const outputs = [buildLog(0), buildLog(1), buildLog(2)];
    const { sessionId } = await store.create({ cwd: temp.root });
    for (const output of outputs) await appendOutput(sessionId, output);
    const before = await store.readSession(sessionId);
    await store.compact(sessionId);
    const [base, second, third] = outputs.map(hashOf) as [string, string, string];
    expect(blobs.isDelta(base)).toBe(false);
    expect(blobs.baseOf(second)).toBe(base);
    expect(blobs.baseOf(third)).toBe(base);
    // The base is a plain frame, the deltas a small fraction of it.
    const stored = (hash: string) => statSync(blobs.pathOf(hash)).size;
    expect(stored(second)).toBeLessThan(stored(base) / 10);
    const after = await store.readSession(sessionId);
    expect(after.events).toEqual(before.events);
    expect(store.readBlob(third).toString("utf8")).toBe(outputs[2]);
    // A resumed session reads the same, and its new output may use the old base.
    await appendOutput(sessionId, buildLog(3));
    await store.compact(sessionId);
    expect(blobs.baseOf(hashOf(buildLog(3)))).toBe(base);
    expect(store.readBlob(hashOf(buildLog(3))).toString("utf8")).toBe(buildLog(3));
  });

  it("outputs with nothing in common stay plain frames", async () => {
    const { sessionId } = await store.create({ cwd: temp.root });
    await appendOutput(sessionId, buildLog(0, 1));
    await appendOutput(sessionId, buildLog(0, 2));
    await store.compact(sessionId);
    expect(blobs.isDelta(hashOf(buildLog(0, 1)))).toBe(false);
    expect(blobs.isDelta(hashOf(buildLog(0, 2)))).toBe(false);
  });

  it("a missing base is BLOB_MISSING naming the event that needs it, and the base", async () => {
    const { two, seq, base, delta } = await sharedDelta();
    expect(blobs.baseOf(delta)).toBe(base);
    unlinkSync(blobs.pathOf(base));
    const error = await readError(store.readSession(two));
    expect(error.code).toBe("BLOB_MISSING");
    expect(error.seq).toBe(seq);
    expect(error.sessionId).toBe(two);
    expect(error.message).toContain(base);
  });

  it("a damaged base or delta frame is BLOB_CORRUPT naming the event", async () => {
    const { two, seq, base, delta } = await sharedDelta();
    const basePath = blobs.pathOf(base);
    const baseBytes = readFileSync(basePath);
    writeFileSync(basePath, compressBytes(Buffer.from("other bytes")));
    let error = await readError(store.readSession(two));
    expect(error).toMatchObject({ code: "BLOB_CORRUPT", seq });
    expect(error.message).toContain(base);
    writeFileSync(basePath, baseBytes);
    const deltaPath = blobs.pathOf(delta);
    truncateSync(deltaPath, statSync(deltaPath).size - 9);
    error = await readError(store.readSession(two));
    expect(error).toMatchObject({ code: "BLOB_CORRUPT", seq });
    // The store's own read names the blob.
    expect(() => blobs.get(delta)).toThrow(BlobReadError);
  });

  it("reclaim keeps a base that only a kept delta needs (no log names it any more)", async () => {
    const { one, two, base, delta, again } = await sharedDelta();
    // Session 1, the only log naming the base, goes for good.
    await store.delete(one);
    store.emptyTrash({ dryRun: false });
    const old = new Date(Date.now() - 2 * 3600_000);
    for (const hash of [base, delta]) utimesSync(blobs.pathOf(hash), old, old);
    const kind = store.storageKinds().find((entry) => entry.kind === "blobs")!;
    await kind.reclaim(new Set(await store.sessionIds()), { dryRun: false });
    expect(blobs.has(base)).toBe(true);
    const session = await store.readSession(two);
    expect(session.events.some((event) => "output" in event && event.output === again)).toBe(true);
    // Once no log names the delta either, both go.
    await store.delete(two);
    store.emptyTrash({ dryRun: false });
    await kind.reclaim(new Set(), { dryRun: false });
    expect(blobs.has(base) || blobs.has(delta)).toBe(false);
  });
});
