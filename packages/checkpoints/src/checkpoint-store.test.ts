import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { gitRepo, testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { CheckpointError } from "./errors";
import { runGit } from "./git";
import { openCheckpointStore } from "./open-checkpoint-store";
import { applyRestore, lastRewind, planRestore } from "./rewind";

/** sha256 of every file under `dir` with its mode, by relative path. */
function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full);
        out[path.relative(dir, full)] =
          `${stat.mode.toString(8)} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(dir);
  return out;
}

function repo(): { home: string; root: string } {
  const base = testTempDir();
  const root = path.join(base, "repo");
  const home = path.join(base, "home");
  mkdirSync(root);
  gitRepo(root, {
    "a.txt": "alpha\n",
    "gone.txt": "tracked, to be deleted\n",
    "run.sh": "echo hi\n",
    "move-me.txt": "moving content that is long enough\n",
    ".gitignore": "ignored/\n*.log\n",
  });
  return { home, root };
}

describe("CheckpointStore", () => {
  it("records writes, edits, new files, deletions, chmod and renames, and restores each state", async () => {
    const { home, root } = repo();
    const userGit = hashTree(path.join(root, ".git"));
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    expect(first.changes).toEqual([]);

    writeFileSync(path.join(root, "a.txt"), "alpha changed\n");
    writeFileSync(path.join(root, "new.txt"), "untracked\n");
    rmSync(path.join(root, "gone.txt"));
    chmodSync(path.join(root, "run.sh"), 0o755);
    renameSync(path.join(root, "move-me.txt"), path.join(root, "moved.txt"));
    mkdirSync(path.join(root, "ignored"));
    writeFileSync(path.join(root, "ignored", "cache.bin"), "ignored\n");
    writeFileSync(path.join(root, "debug.log"), "ignored too\n");
    const second = await store.take({ ref, previous: first.id });
    const summary = second.changes.map((change) =>
      [change.change, change.path, change.from].filter(Boolean).join(" "),
    );
    expect(summary.sort()).toEqual(
      [
        "deleted gone.txt",
        "mode run.sh",
        "modified a.txt",
        "added new.txt",
        "renamed moved.txt move-me.txt",
      ].sort(),
    );
    const afterSecond = hashTree(root);

    // back to the first checkpoint
    const plan = await planRestore(store, { target: first.id });
    await applyRestore(store, plan, { sessionId: "s1", seq: 1 });
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("alpha\n");
    expect(readFileSync(path.join(root, "gone.txt"), "utf8")).toBe("tracked, to be deleted\n");
    expect(statSync(path.join(root, "run.sh")).mode & 0o777).toBe(0o644);
    expect(readFileSync(path.join(root, "move-me.txt"), "utf8")).toContain("moving");
    expect(() => statSync(path.join(root, "moved.txt"))).toThrow();
    expect(() => statSync(path.join(root, "new.txt"))).toThrow();
    // ignored files are never touched
    expect(readFileSync(path.join(root, "ignored", "cache.bin"), "utf8")).toBe("ignored\n");
    expect(readFileSync(path.join(root, "debug.log"), "utf8")).toBe("ignored too\n");

    // undo brings back exactly what was there
    const undo = await lastRewind(store);
    const back = await planRestore(store, { target: undo.undo });
    await applyRestore(store, back, { kind: "undo" });
    expect(hashTree(root)).toEqual(afterSecond);

    // the user's .git is byte-identical
    expect(hashTree(path.join(root, ".git"))).toEqual(userGit);
  });

  it("leaves files over the size limit out and says so, and never deletes them on restore", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root, maxFileBytes: 1000 });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    writeFileSync(path.join(root, "big.bin"), Buffer.alloc(5000, 1));
    const second = await store.take({ ref, previous: first.id });
    expect(second.omitted).toEqual([{ path: "big.bin", reason: "too-large", bytes: 5000 }]);
    const plan = await planRestore(store, { target: first.id });
    await applyRestore(store, plan, {});
    expect(statSync(path.join(root, "big.bin")).size).toBe(5000);
  });

  it("works in a folder without git, honouring its .gitignore", async () => {
    const base = testTempDir();
    const root = path.join(base, "plain");
    mkdirSync(root);
    writeFileSync(path.join(root, ".gitignore"), "node_modules/\n");
    mkdirSync(path.join(root, "node_modules"));
    writeFileSync(path.join(root, "node_modules", "x.js"), "x\n");
    writeFileSync(path.join(root, "main.ts"), "one\n");
    const store = await openCheckpointStore({ home: path.join(base, "home"), cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    writeFileSync(path.join(root, "main.ts"), "two\n");
    writeFileSync(path.join(root, "node_modules", "x.js"), "changed\n");
    const second = await store.take({ ref, previous: first.id });
    expect(second.changes.map((change) => change.path)).toEqual(["main.ts"]);
    await applyRestore(store, await planRestore(store, { target: first.id }), {});
    expect(readFileSync(path.join(root, "main.ts"), "utf8")).toBe("one\n");
    expect(readFileSync(path.join(root, "node_modules", "x.js"), "utf8")).toBe("changed\n");
  });

  it("names files changed since the agent's last checkpoint as hand edits", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    writeFileSync(path.join(root, "a.txt"), "agent\n");
    const agent = await store.take({ ref, previous: first.id });
    writeFileSync(path.join(root, "a.txt"), "person\n");
    const plan = await planRestore(store, { target: first.id, agentLatest: agent.id });
    expect(plan.handEdited).toEqual(["a.txt"]);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("person\n");
  });

  it("a held index lock is the code GIT_INDEX_LOCKED, and take waits for the lock to go", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    const lock = `${store.place.indexFile}.lock`;
    writeFileSync(lock, "");
    const held = await runGit(store.place, ["add", "-A"]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(CheckpointError.isInstance(held) && held.code).toBe("GIT_INDEX_LOCKED");
    writeFileSync(path.join(root, "a.txt"), "changed\n");
    const taking = store.take({ ref, previous: first.id });
    // Another run's git finishes: its lock goes, and the waiting take goes on.
    setTimeout(() => rmSync(lock, { force: true }), 150);
    const second = await taking;
    expect(second.changes.map((change) => change.path)).toContain("a.txt");
  });

  it("keeps a split private index with an untracked cache, and still sees new files in known folders", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    mkdirSync(path.join(root, "src", "deep"), { recursive: true });
    writeFileSync(path.join(root, "src", "deep", "one.ts"), "one\n");
    const second = await store.take({ ref, previous: first.id });
    // git keeps the untracked cache as the index extension "UNTR", folders by name once filled
    const index = readFileSync(store.place.indexFile);
    expect(index.subarray(index.indexOf("UNTR")).includes("deep\0")).toBe(true);
    // the index is split ("link" extension): each write rewrites only the changed entries
    expect(index.includes("link")).toBe(true);
    expect(readdirSync(store.place.gitDir).some((name) => name.startsWith("sharedindex."))).toBe(
      true,
    );
    writeFileSync(path.join(root, "src", "deep", "two.ts"), "two\n");
    writeFileSync(path.join(root, "src", "three.ts"), "three\n");
    writeFileSync(path.join(root, "a.txt"), "alpha again\n");
    const third = await store.take({ ref, previous: second.id });
    expect(third.changes.map((change) => `${change.change} ${change.path}`).sort()).toEqual([
      "added src/deep/two.ts",
      "added src/three.ts",
      "modified a.txt",
    ]);
    rmSync(path.join(root, "src", "deep", "one.ts"));
    const fourth = await store.take({ ref, previous: third.id });
    expect(fourth.changes.map((change) => `${change.change} ${change.path}`)).toEqual([
      "deleted src/deep/one.ts",
    ]);
  });

  it("packs its loose objects once there are many: git reads them back, restores still work", async () => {
    const { home, root } = repo();
    // full checkpoints (a session's first in a process, a rewind's undo) write trees and blobs
    const store = await openCheckpointStore({ home, cwd: root, light: false });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    mkdirSync(path.join(root, "many"));
    for (let index = 0; index < 1500; index += 1) {
      writeFileSync(path.join(root, "many", `f${index}.txt`), `file number ${index}\n`);
    }
    const second = await store.take({ ref, previous: first.id });
    expect(second.changes).toHaveLength(1500);
    const inStore = (...args: string[]) =>
      execFileSync("git", [`--git-dir=${store.place.gitDir}`, ...args], {
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
      });
    const counts = Object.fromEntries(
      inStore("count-objects", "-v")
        .trim()
        .split("\n")
        .map((line) => line.split(": ")),
    );
    expect(counts.count).toBe("0"); // no loose object left
    expect(Number(counts["in-pack"])).toBeGreaterThan(1500);
    inStore("fsck", "--strict", "--no-dangling");
    expect(inStore("show", `${second.id}:many/f1499.txt`)).toBe("file number 1499\n");
    await applyRestore(store, await planRestore(store, { target: first.id }), {});
    expect(readdirSync(root).includes("many")).toBe(false);
  }, 60_000);

  it("writes commits and refs git itself reads back: fsck clean, parents chained, ref moved", async () => {
    const { home, root } = repo();
    // full checkpoints only (a session's first in a process, a rewind's undo)
    const store = await openCheckpointStore({ home, cwd: root, light: false });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    writeFileSync(path.join(root, "a.txt"), "checked by git\n");
    const second = await store.take({ ref, previous: first.id });
    const same = await store.take({ ref, previous: second.id });
    expect(same.id).toBe(second.id);
    const inStore = (...args: string[]) =>
      execFileSync("git", [`--git-dir=${store.place.gitDir}`, ...args], {
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
      }).trim();
    expect(inStore("rev-parse", ref)).toBe(second.id);
    expect(inStore("rev-parse", `${second.id}^`)).toBe(first.id);
    expect(inStore("rev-parse", `${second.id}^{tree}`)).toBe(second.tree);
    expect(inStore("cat-file", "-t", second.id)).toBe("commit");
    expect(inStore("for-each-ref", "--format=%(refname)", "refs/tapedeck/")).toBe(ref);
    // fsck reads every object the store holds and checks each commit's format
    execFileSync("git", [`--git-dir=${store.place.gitDir}`, "fsck", "--strict", "--no-dangling"], {
      stdio: "pipe",
    });
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("checked by git\n");
  });
});
