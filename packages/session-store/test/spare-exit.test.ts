/**
 * A writer keeps an empty staged file ready for its next blob (`BlobStore.stage`). A process
 * that exits with a writer open (an error path, `process.exit`) removes it on its way out.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childHome, spawnChild } from "./child-process";

const home = childHome();

describe("a writer's spare staged file", () => {
  it("is removed when the process exits with the writer still open", async () => {
    const { sessionId } = await home.store.create({ cwd: home.temp.root });
    const child = spawnChild(home.script, ["exit", home.temp.home, sessionId]);
    const line = await child.waitFor((text) => text.startsWith("spare "));
    const spare = line.slice("spare ".length);
    expect(spare).toMatch(/\/blobs\/sha256\/\.blob\.[^/]+\.tmp$/);
    expect((await child.exited).code).toBe(3);
    expect(existsSync(spare)).toBe(false);
    const shardRoot = join(home.temp.home, "blobs", "sha256");
    expect(readdirSync(shardRoot).filter((name) => !/^[0-9a-f]{2}$/.test(name))).toEqual([]);
  });
});
