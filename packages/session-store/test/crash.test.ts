import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { EventLogCorruptError, type Session } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { childHome, spawnChild } from "./child-process";
import { drafts } from "./helpers";

/** SIGKILLs in one run: ≥ 200 in CI; `pnpm bench` runs the stress version with more. */
const kills = Number(process.env.TAPEDECK_CRASH_KILLS ?? 200);
/** SIGKILLs of the cold variant (appends to a cold log's segment). */
const coldKills = Number(process.env.TAPEDECK_COLD_CRASH_KILLS ?? 60);
/** A fresh session every this many kills keeps each verification replay small. */
const killsPerSession = 10;

const home = childHome();

function digestOf(line: Buffer): string {
  return createHash("sha1").update(line).digest("hex").slice(0, 16);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads the log after a crash: valid, or only a torn tail that `repair` fixes. */
async function verify(sessionId: string): Promise<{ session: Session; repaired: boolean }> {
  try {
    return { session: await home.store.readSession(sessionId), repaired: false };
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error) || error.code !== "TORN_TAIL") throw error;
    const report = await home.store.repair(sessionId);
    expect(report.action).toBe("moved-torn-tail");
    return { session: await home.store.readSession(sessionId), repaired: true };
  }
}

/**
 * seq → digest of its line exactly as it sits in the file or, for a line whose payload went to a
 * blob (the large outputs), of the event as read back with the blob resolved: the bytes the
 * writer was handed.
 */
async function lineDigests(sessionId: string): Promise<Map<number, string>> {
  // The log's bytes as the store joins them (a cold log: its `.zst`'s, then its segment's).
  const size = home.store.entry(sessionId)?.size ?? 0;
  const reader = home.store.openLogReader(sessionId);
  const bytes = reader?.readAt(0, size) ?? Buffer.alloc(0);
  reader?.close();
  const digests = new Map<number, string>();
  for await (const entry of home.store.read(sessionId)) {
    const line = bytes.subarray(entry.offset, entry.end - 1);
    const inBlob = line.includes('"outputBlob":');
    digests.set(
      entry.event.seq,
      digestOf(inBlob ? Buffer.from(JSON.stringify(entry.event)) : line),
    );
  }
  return digests;
}

describe("crash safety", () => {
  it(`survives ${kills} SIGKILLs at random moments: every log valid or torn-tail-only, every resolved append present`, async () => {
    await crashLoop(kills, false);
  }, 600_000);

  it(`survives ${coldKills} SIGKILLs appending to a cold log's segment: the .zst never written, every resolved append present`, async () => {
    await crashLoop(coldKills, true);
  }, 600_000);
});

/**
 * Kills a child that resumes a session and appends turns, `count` times; with `cold`, each fresh
 * session is compacted first, so the child appends to the segment beside its `.zst`.
 */
async function crashLoop(count: number, cold: boolean): Promise<void> {
  let sessionId = "";
  let resolved = new Map<number, string>();
  let repaired = 0;
  let appended = 0;
  let zst: { path: string; ino: number; mtimeMs: number; bytes: Buffer } | undefined;
  for (let kill = 0; kill < count; kill += 1) {
    if (kill % killsPerSession === 0) {
      sessionId = (
        await home.store.create({
          cwd: home.temp.root,
          seed: [drafts("seed").system("crash test")],
        })
      ).sessionId;
      resolved = new Map();
      if (cold) {
        expect((await home.store.compact(sessionId)).action).toBe("compressed");
        const path = `${home.store.pathOf(sessionId)}.zst`;
        zst = { path, ...statSync(path), bytes: readFileSync(path) };
      }
    }
    const durability = Math.random() < 0.3 ? "every-event" : "turn";
    const child = spawnChild(home.script, ["crash", home.temp.home, sessionId, durability]);
    const moment = Math.random();
    if (moment < 0.25) {
      // Anywhere: during start-up, resume, repair, lock reclaim or the first appends.
      await Promise.race([sleep(Math.random() * 120), child.exited]);
    } else if (moment < 0.5) {
      // Inside (or just around) a multi-megabyte write(), where a torn tail can appear.
      await child.waitFor((line) => line.startsWith("big "));
      await sleep(Math.random() * 3);
    } else {
      await child.waitFor((line) => line === "ready");
      await sleep(Math.random() * 25);
    }
    child.process.kill("SIGKILL");
    const { signal } = await child.exited;
    if (signal !== "SIGKILL") {
      throw new Error(`the child exited on its own (${signal}): ${child.stderr()}`);
    }
    for (const line of child.lines) {
      const match = /^ok (\d+) ([0-9a-f]+)$/.exec(line);
      if (match) {
        resolved.set(Number(match[1]), match[2]!);
        appended += 1;
      }
    }

    const result = await verify(sessionId);
    if (result.repaired) repaired += 1;
    const onDisk = await lineDigests(sessionId);
    for (const [seq, digest] of resolved) {
      if (onDisk.get(seq) !== digest) {
        throw new Error(`seq ${seq} resolved before kill ${kill} but is missing or different`);
      }
    }
    expect(result.session.lastSeq).toBeGreaterThanOrEqual(Math.max(0, ...resolved.keys()));
    if (zst !== undefined) {
      expect(statSync(zst.path)).toMatchObject({ ino: zst.ino, mtimeMs: zst.mtimeMs });
      expect(readFileSync(zst.path).equals(zst.bytes)).toBe(true);
    }
  }
  console.log(
    `crash test${cold ? " (cold)" : ""}: ${count} kills, ${appended} resolved appends checked, ${repaired} torn tails repaired`,
  );
  expect(appended).toBeGreaterThan(count);
}
