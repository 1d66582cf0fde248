import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { EventLogCorruptError, type Session } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../src/blob-store";
import { decompressBytes } from "../src/zstd";
import { childHome, spawnChild } from "./child-process";
import { drafts } from "./helpers";

/**
 * SIGKILLs of a process that compresses a log and appends to it, over and over: the first compact
 * compresses the plain log, each later one folds the segment the appends wrote into a new `.zst`.
 */
const kills = Number(process.env.TAPEDECK_COMPACT_CRASH_KILLS ?? 30);

const home = childHome();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function digests(sessionId: string): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for await (const { event } of home.store.read(sessionId)) {
    found.set(
      event.seq,
      createHash("sha1").update(JSON.stringify(event)).digest("hex").slice(0, 16),
    );
  }
  return found;
}

/**
 * The session read after a kill. A kill inside an append's `write()` of a line longer than a page
 * (a blob's reference carries a 2,000-character preview) can leave part of it: a torn tail, never
 * acknowledged, which must lie after the compressed bytes (compact and a fold never tear) and is
 * moved aside by `repair`, as `resumeSession` does.
 */
async function readWhole(sessionId: string): Promise<Session> {
  try {
    return await home.store.readSession(sessionId);
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error) || error.code !== "TORN_TAIL") throw error;
    const cold = `${home.store.pathOf(sessionId)}.zst`;
    const base = existsSync(cold) ? decompressBytes(readFileSync(cold)).length : 0;
    expect(error.offset).toBeGreaterThanOrEqual(base);
    expect((await home.store.repair(sessionId)).action).toBe("moved-torn-tail");
    return home.store.readSession(sessionId);
  }
}

describe("crash safety of compact", () => {
  it.each([
    ["a log is compressed, appended to and folded", "cycle"],
    ["a log and its blobs are compressed (each new blob a delta against a base)", "cycle-blobs"],
  ])(
    `survives ${kills} SIGKILLs while %s: it always reads whole, every acknowledged append present`,
    async (_what, mode) => {
      const run = drafts("seed");
      const { sessionId } = await home.store.create({
        cwd: home.temp.root,
        seed: [run.system("compact crash test"), run.user("some text ".repeat(200))],
      });
      const resolved = new Map<number, string>();
      for (let kill = 0; kill < kills; kill += 1) {
        const child = spawnChild(home.script, [mode, home.temp.home, sessionId]);
        await child.waitFor((line) => line === "ready");
        // A cycle (compact or fold, append to the segment) fsyncs several times: tens of ms.
        await sleep(Math.random() * 400);
        child.process.kill("SIGKILL");
        const { signal } = await child.exited;
        if (signal !== "SIGKILL") throw new Error(`the child exited on its own: ${child.stderr()}`);
        for (const line of child.lines) {
          const match = /^ok (\d+) ([0-9a-f]+)$/.exec(line);
          if (match) resolved.set(Number(match[1]), match[2]!);
        }
        // Plain, compressed or both (the same bytes): the log reads whole; only an append's line
        // may be torn (below).
        const session = await readWhole(sessionId);
        const onDisk = await digests(sessionId);
        for (const [seq, digest] of resolved) {
          if (onDisk.get(seq) !== digest) {
            throw new Error(`seq ${seq} acknowledged before kill ${kill} but missing or different`);
          }
        }
        expect(session.lastSeq).toBeGreaterThanOrEqual(Math.max(0, ...resolved.keys()));
      }
      // A writer appends to the cold log's segment; compact folds it in, and the reclaim of the
      // plain logs removes segments a kill left between a fold's rename and the segment's removal.
      await home.store.append(sessionId, [{ type: "x-after", runId: "after" }]);
      expect((await home.store.compact(sessionId)).action).toBe("compressed");
      const plainLogs = home.store.storageKinds().find((kind) => kind.kind === "plain logs");
      await plainLogs?.reclaim(new Set([sessionId]), { dryRun: false });
      const names = readdirSync(`${home.temp.home}/sessions`).filter(
        (name) => name.startsWith(sessionId) && !name.includes(".torn-"),
      );
      expect(names).toEqual([`${sessionId}.jsonl.zst`]);
      const onDisk = await digests(sessionId);
      for (const [seq, digest] of resolved) expect(onDisk.get(seq)).toBe(digest);
      expect(resolved.size).toBeGreaterThan(kills / 4);
      if (mode === "cycle-blobs") {
        // The kills left deltas behind, each read against its base above.
        await home.store.compact(sessionId);
        const blobs = new BlobStore(home.temp.home);
        const deltas = blobs.list().filter((blob) => !blob.temp && blobs.isDelta(blob.hash));
        expect(deltas.length).toBeGreaterThan(0);
      }
    },
    600_000,
  );
});
