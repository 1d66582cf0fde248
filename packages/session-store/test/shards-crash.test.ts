import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EventLogCorruptError, uuidv7 } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { createSessionStore } from "../src/index";
import { childHome, spawnChild } from "./child-process";
import { drafts } from "./helpers";

const home = childHome();
const kills = Number(process.env.TAPEDECK_SHARDS_CRASH_KILLS ?? 12);

describe("shard folders made ahead, killed part way", () => {
  it(`a writer killed (SIGKILL) while its open makes a new home's shard folders leaves every session readable, every resolved append present; the next writer completes the folders (${kills} kills)`, async () => {
    let partial = 0;
    for (let kill = 0; kill < kills; kill += 1) {
      const homePath = join(home.temp.root, `home-${kill}`);
      const store = createSessionStore({ home: homePath });
      const { sessionId } = await store.create({ cwd: home.temp.root });
      const child = spawnChild(home.script, ["crash", homePath, sessionId, "every-event"]);
      await child.waitFor((line) => line === "ready");
      // Half at once (the folders are still being made), half a little later (made, or fsyncing).
      if (kill % 2 === 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      child.process.kill("SIGKILL");
      const { signal } = await child.exited;
      expect(signal).toBe("SIGKILL");
      const resolved = child.lines
        .map((line) => /^ok (\d+) /.exec(line)?.[1])
        .filter((seq) => seq !== undefined)
        .map(Number);
      const shardRoot = join(homePath, "blobs", "sha256");
      const made = existsSync(shardRoot) ? readdirSync(shardRoot).length : 0;
      if (made < 256) partial += 1;
      // Readable (a torn tail at most, repaired), blobs resolved and verified by hash.
      const reader = createSessionStore({ home: homePath });
      let session = await reader.readSession(sessionId).catch(async (error: unknown) => {
        if (!EventLogCorruptError.isInstance(error) || error.code !== "TORN_TAIL") throw error;
        await reader.repair(sessionId);
        return reader.readSession(sessionId);
      });
      expect(session.lastSeq).toBeGreaterThanOrEqual(Math.max(0, ...resolved));
      for await (const _entry of reader.read(sessionId)) {
        // Every line parses and every blob it names reads back whole.
      }
      // The next writer completes the folders and stores a blob.
      const resumed = await reader.resumeSession(sessionId);
      const writer = await reader.openWriter(sessionId);
      if (resumed.synthesizedEvents.length > 0) await writer.append(resumed.synthesizedEvents);
      const run = drafts(uuidv7());
      await writer.append([run.start(true), run.user("after the kill\n".repeat(400)), run.end()]);
      await writer.close();
      expect(readdirSync(shardRoot)).toHaveLength(256);
      session = await createSessionStore({ home: homePath }).readSession(sessionId);
      expect(session.events.at(-2)).toMatchObject({ content: "after the kill\n".repeat(400) });
    }
    // Some kills landed while the folders were being made (each home is new).
    console.log(
      `shards-crash: ${partial} of ${kills} kills left a home with fewer than 256 shard folders`,
    );
    expect(partial).toBeGreaterThan(0);
  }, 300_000);
});
