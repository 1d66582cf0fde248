import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { openCheckpointStore } from "./open-checkpoint-store";
import { checkpointStorage } from "./storage";

describe("checkpointStorage", () => {
  it("drops the checkpoints of sessions no longer live, and a store nobody references", async () => {
    const base = testTempDir();
    const root = path.join(base, "work");
    const home = path.join(base, "home");
    mkdirSync(root);
    writeFileSync(path.join(root, "a.txt"), "a\n");
    const store = await openCheckpointStore({ home, cwd: root });
    await store.take({ ref: "refs/tapedeck/sessions/s1" });
    writeFileSync(path.join(root, "big.txt"), "only s2 saw this\n".repeat(5000));
    const s2 = await store.take({ ref: "refs/tapedeck/sessions/s2" });
    const storage = checkpointStorage(home);
    expect((await storage.usage()).bytes).toBeGreaterThan(0);

    expect(await storage.reclaim(new Set(["s1"]), { dryRun: true })).toEqual({ bytes: 0 });
    await storage.reclaim(new Set(["s1"]), { dryRun: false });
    const refs = execFileSync("git", ["--git-dir", store.place.gitDir, "for-each-ref"]).toString();
    expect(refs).toContain("refs/tapedeck/sessions/s1");
    expect(refs).not.toContain("s2");
    // nothing keeps s2's checkpoint alive, though it was the store's last (HEAD names the last):
    // it is unreachable, pruned once the hour's grace has passed
    const unreachable = execFileSync("git", [
      "--git-dir",
      store.place.gitDir,
      "fsck",
      "--unreachable",
      "--no-reflogs",
    ]).toString();
    expect(unreachable).toContain(`unreachable commit ${s2.id}`);

    const before = (await storage.usage()).bytes;
    expect((await storage.reclaim(new Set(), { dryRun: true })).bytes).toBe(before);
    expect(existsSync(store.dir)).toBe(true);
    await storage.reclaim(new Set(), { dryRun: false });
    expect(existsSync(store.dir)).toBe(false);
  });
});
