import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { gitRepo, testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { CheckpointError } from "./errors";
import {
  encodeLightRecord,
  INLINE_LIMIT,
  isLightId,
  LIGHT_FILE,
  parseLightRecords,
} from "./light-records";
import { openCheckpointStore } from "./open-checkpoint-store";
import { applyRestore, planRestore } from "./rewind";
import { checkpointStorage } from "./storage";

/** Every file under `dir` (not `.git`) with its mode and content hash, or a symlink's target. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name === ".git" || entry.name.endsWith(".log")) continue; // ignored: never restored
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isSymbolicLink()) out[relative] = `link ${readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else {
        const mode = lstatSync(full).mode & 0o111 ? "x" : "-";
        out[relative] = `${mode} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(dir);
  return out;
}

function repo(): { base: string; home: string; root: string } {
  const base = testTempDir();
  const root = path.join(base, "repo");
  const home = path.join(base, "home");
  mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  gitRepo(root, {
    "a.txt": "alpha\n",
    "gone.txt": "tracked, to be deleted\n",
    "run.sh": "echo hi\n",
    "move-me.txt": "moving content that is long enough\n",
    "src/deep/one.ts": "export const one = 1;\n",
    ".gitignore": "*.log\n",
  });
  return { base, home, root };
}

function inStore(gitDir: string, ...args: string[]): string {
  return execFileSync("git", [`--git-dir=${gitDir}`, ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** Edits of the workspace, one per light checkpoint: every kind of change. */
const steps: ((root: string) => void)[] = [
  (root) => writeFileSync(path.join(root, "a.txt"), "alpha, edited\n"),
  (root) => {
    rmSync(path.join(root, "gone.txt"));
    writeFileSync(path.join(root, "new.txt"), "untracked\n");
  },
  (root) => chmodSync(path.join(root, "run.sh"), 0o755),
  (root) => renameSync(path.join(root, "move-me.txt"), path.join(root, "moved.txt")),
  (root) => symlinkSync("a.txt", path.join(root, "link-to-a")),
  (root) => writeFileSync(path.join(root, "a.txt"), "alpha\n"), // back to its base content
  (root) => {
    // over the inline limit: stored as a git blob, named by id
    writeFileSync(path.join(root, "big.bin"), Buffer.alloc(INLINE_LIMIT + 10, 7));
    writeFileSync(path.join(root, "debug.log"), "ignored\n");
  },
  (root) => {
    rmSync(path.join(root, "link-to-a"));
    symlinkSync("new.txt", path.join(root, "link-to-a"));
    rmSync(path.join(root, "src"), { recursive: true });
  },
];

describe("light checkpoint records", () => {
  it("round-trip: parent, base, ref, contents, blob ids and deletions", () => {
    const binary = Buffer.from([0, 1, 2, 255, 10, 0]);
    const entries = [
      { path: "dir/é file.txt", mode: "100644", content: Buffer.from("hello\n") },
      { path: "bin", mode: "100755", content: binary },
      { path: "gone", mode: "000000" },
      { path: "big", mode: "100644", oid: "b".repeat(40) },
      { path: "empty", mode: "100644", content: Buffer.alloc(0) },
    ];
    const one = encodeLightRecord({
      parent: "a".repeat(40),
      base: "a".repeat(40),
      ref: "refs/tapedeck/sessions/s1",
      entries,
    });
    expect(isLightId(one.id)).toBe(true);
    expect(isLightId("a".repeat(40))).toBe(false);
    const two = encodeLightRecord({
      parent: one.id,
      base: "a".repeat(40),
      ref: "refs/tapedeck/sessions/s1",
      entries: [{ path: "link", mode: "120000", content: Buffer.from("target") }],
    });
    const read = parseLightRecords(Buffer.concat([one.frame, two.frame]));
    expect(read.damaged).toEqual([]);
    expect(read.tornTail).toBe(0);
    expect(read.records.get(one.id)).toEqual({
      id: one.id,
      parent: "a".repeat(40),
      base: "a".repeat(40),
      ref: "refs/tapedeck/sessions/s1",
      entries,
    });
    expect(read.records.get(two.id)?.parent).toBe(one.id);
  });

  it("a damaged record (crc wrong) and a torn last one lose only themselves", () => {
    const frames = [1, 2, 3].map(
      (index) =>
        encodeLightRecord({
          parent: "c".repeat(40),
          base: "c".repeat(40),
          ref: `refs/tapedeck/sessions/s${index}`,
          entries: [{ path: `f${index}`, mode: "100644", content: Buffer.from(`${index}\n`) }],
        }).frame,
    );
    const damaged = Buffer.concat(frames);
    const second = (frames[0]?.length ?? 0) + 20;
    damaged[second] = (damaged[second] ?? 0) ^ 0xff; // a byte of the second payload
    const read = parseLightRecords(damaged);
    expect([...read.records.values()].map((record) => record.ref)).toEqual([
      "refs/tapedeck/sessions/s1",
      "refs/tapedeck/sessions/s3",
    ]);
    expect(read.damaged).toEqual([frames[0]?.length]);

    const torn = Buffer.concat(frames).subarray(0, Buffer.concat(frames).length - 5);
    const tornRead = parseLightRecords(torn);
    expect(tornRead.records.size).toBe(2);
    expect(tornRead.damaged).toEqual([]);
    expect(tornRead.tornTail).toBe((frames[2]?.length ?? 0) - 5);
    // a torn record followed by later appends: the later ones are read
    const thenMore = Buffer.concat([torn, frames[0] ?? Buffer.alloc(0)]);
    expect(parseLightRecords(thenMore).records.size).toBe(2);
    expect(parseLightRecords(thenMore).damaged).toHaveLength(1);
  });
});

describe("light checkpoints", () => {
  it("every kind of change: each light checkpoint's tree is the full checkpoint's of the same state, and a rewind to each restores its files", async () => {
    const { base, home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    // the same states checkpointed by full checkpoints only, in another home
    const full = await openCheckpointStore({
      home: path.join(base, "home-full"),
      cwd: root,
      light: false,
    });
    const ref = "refs/tapedeck/sessions/s1";
    let previous = (await store.take({ ref })).id;
    let fullPrevious = (await full.take({ ref })).id;
    expect(isLightId(previous)).toBe(false);
    const taken: { id: string; files: Record<string, string>; tree: string }[] = [];
    for (const step of steps) {
      step(root);
      const light = await store.take({ ref, previous });
      const whole = await full.take({ ref, previous: fullPrevious });
      expect(isLightId(light.id)).toBe(true);
      // the same changes as the full checkpoint (exact renames)
      const summary = (changes: typeof light.changes) =>
        changes.map((change) => [change.change, change.path, change.from].join(" ")).sort();
      expect(summary(light.changes)).toEqual(summary(whole.changes));
      previous = light.id;
      fullPrevious = whole.id;
      taken.push({ id: light.id, files: snapshot(root), tree: whole.tree ?? "" });
    }
    // no object written by the light ones: the record file holds them
    expect(existsSync(path.join(store.dir, LIGHT_FILE))).toBe(true);
    // a fresh store object (another process) builds each tree from the records
    const reader = await openCheckpointStore({ home, cwd: root });
    for (const entry of taken) expect(await reader.requireTree(entry.id)).toBe(entry.tree);
    for (const entry of [...taken].reverse()) {
      await applyRestore(reader, await planRestore(reader, { target: entry.id }), {});
      expect(snapshot(root)).toEqual(entry.files);
    }
    inStore(reader.place.gitDir, "fsck", "--strict", "--no-dangling");
  }, 60_000);

  it("a rewind's undo in the process of the chain is a small record branching off it, and undoing restores hand edits exactly", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = (await store.take({ ref })).id;
    let previous = first;
    for (let index = 0; index < 5; index += 1) {
      writeFileSync(path.join(root, `file-${index}.txt`), `content ${index}\n`.repeat(20));
      previous = (await store.take({ ref, previous })).id;
    }
    writeFileSync(path.join(root, "a.txt"), "a hand edit\n");
    const now = snapshot(root);
    const plan = await planRestore(store, { target: first });
    expect(isLightId(plan.current.id)).toBe(true);
    const read = parseLightRecords(readFileSync(path.join(store.dir, LIGHT_FILE)));
    const undo = read.records.get(plan.current.id);
    expect(undo?.parent).toBe(previous); // on the chain, not on the base
    expect(undo?.entries.map((entry) => entry.path)).toEqual(["a.txt"]);
    await applyRestore(store, plan, {});
    expect(existsSync(path.join(root, "file-0.txt"))).toBe(false);
    await applyRestore(store, await planRestore(store, { target: plan.current.id }), {});
    expect(snapshot(root)).toEqual(now);
  });

  it("a file changed between git's hashing and the read is recorded as it is now (full fallback)", async () => {
    const { base, home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const ref = "refs/tapedeck/sessions/s1";
    const first = await store.take({ ref });
    // a git on PATH that changes a.txt right after diff-index ran
    const bin = path.join(base, "bin");
    mkdirSync(bin);
    const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
    const target = path.join(root, "a.txt");
    writeFileSync(
      path.join(bin, "git"),
      `#!/bin/sh\n'${realGit}' "$@"\ncode=$?\ncase " $* " in *" diff-index "*) printf 'changed meanwhile, longer\\n' > '${target}';; esac\nexit $code\n`,
      { mode: 0o755 },
    );
    writeFileSync(target, "first edit\n");
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ""}`;
    let second: Awaited<ReturnType<typeof store.take>>;
    try {
      second = await store.take({ ref, previous: first.id });
    } finally {
      process.env.PATH = savedPath;
    }
    expect(isLightId(second.id)).toBe(false); // fell back to a full checkpoint
    expect(second.changes.map((change) => `${change.change} ${change.path}`)).toEqual([
      "modified a.txt",
    ]);
    expect(inStore(store.place.gitDir, "show", `${second.id}:a.txt`)).toBe(
      "changed meanwhile, longer",
    );
    // the chain goes on from it
    writeFileSync(target, "third\n");
    const third = await store.take({ ref, previous: second.id });
    expect(isLightId(third.id)).toBe(true);
    const tree = await store.requireTree(third.id);
    expect(inStore(store.place.gitDir, "show", `${tree}:a.txt`)).toBe("third");
  });

  it("a damaged or torn record file: a precise CHECKPOINT_NOT_FOUND for what it held, nothing else lost", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const s1 = "refs/tapedeck/sessions/s1";
    const s2 = "refs/tapedeck/sessions/s2";
    const ids: Record<string, string> = {};
    ids.s1base = (await store.take({ ref: s1 })).id;
    ids.s2base = (await store.take({ ref: s2 })).id;
    writeFileSync(path.join(root, "a.txt"), "one\n");
    ids.s1a = (await store.take({ ref: s1, previous: ids.s1base })).id;
    writeFileSync(path.join(root, "b.txt"), "two\n");
    ids.s2a = (await store.take({ ref: s2, previous: ids.s2base })).id;
    writeFileSync(path.join(root, "c.txt"), "three\n");
    ids.s1b = (await store.take({ ref: s1, previous: ids.s1a })).id;
    writeFileSync(path.join(root, "d.txt"), "four\n");
    ids.s1c = (await store.take({ ref: s1, previous: ids.s1b })).id;
    for (const key of ["s1a", "s2a", "s1b", "s1c"]) expect(isLightId(ids[key] ?? "")).toBe(true);
    const file = path.join(store.dir, LIGHT_FILE);
    const whole = readFileSync(file);
    const offsets: number[] = [];
    for (let at = whole.indexOf("TDL1"); at >= 0; at = whole.indexOf("TDL1", at + 1))
      offsets.push(at);
    expect(offsets).toHaveLength(4);
    // flip a byte in s2's record (the second)
    const damaged = Buffer.from(whole);
    const at = (offsets[1] ?? 0) + 14;
    damaged[at] = (damaged[at] ?? 0) ^ 0x55;
    writeFileSync(file, damaged);
    // then tear the last append (s1c) as a crash mid-write would
    truncateSync(file, whole.length - 3);
    const reader = await openCheckpointStore({ home, cwd: root });
    const failure = await reader.requireTree(ids.s2a ?? "").catch((error: unknown) => error);
    expect(CheckpointError.isInstance(failure) && failure.code).toBe("CHECKPOINT_NOT_FOUND");
    expect(String((failure as Error).message)).toContain(ids.s2a);
    expect(String((failure as Error).message)).toContain(`at byte ${offsets[1]}`);
    const torn = await reader.requireTree(ids.s1c ?? "").catch((error: unknown) => error);
    expect(CheckpointError.isInstance(torn) && torn.code).toBe("CHECKPOINT_NOT_FOUND");
    expect(await reader.treeOf(ids.s1c ?? "")).toBeUndefined();
    // the others are intact
    const s1b = await reader.requireTree(ids.s1b ?? "");
    expect(inStore(reader.place.gitDir, "show", `${s1b}:c.txt`)).toBe("three");
    expect(inStore(reader.place.gitDir, "show", `${s1b}:a.txt`)).toBe("one");
    expect(() => inStore(reader.place.gitDir, "show", `${s1b}:d.txt`)).toThrow();
    // the next process goes on after the torn tail: a full checkpoint (its previous is gone),
    // then light ones appended after the torn bytes, read back
    const after = await reader.take({ ref: s1, previous: ids.s1c ?? "" });
    expect(isLightId(after.id)).toBe(false);
    expect(inStore(reader.place.gitDir, "show", `${after.id}:d.txt`)).toBe("four");
    writeFileSync(path.join(root, "e.txt"), "five\n");
    const next = await reader.take({ ref: s1, previous: after.id });
    expect(isLightId(next.id)).toBe(true);
    const third = await openCheckpointStore({ home, cwd: root });
    const nextTree = await third.requireTree(next.id);
    expect(inStore(third.place.gitDir, "show", `${nextTree}:e.txt`)).toBe("five");
    expect(await third.requireTree(ids.s1b ?? "")).toBe(s1b);
  });

  it("a new process continues a light chain with a full checkpoint: parent is the base, objects written, fsck clean", async () => {
    const { home, root } = repo();
    const ref = "refs/tapedeck/sessions/s1";
    const one = await openCheckpointStore({ home, cwd: root });
    const first = await one.take({ ref });
    writeFileSync(path.join(root, "a.txt"), "light edit\n");
    const light = await one.take({ ref, previous: first.id });
    expect(isLightId(light.id)).toBe(true);
    // another process: its first checkpoint is full, after a.txt was recorded --info-only
    const two = await openCheckpointStore({ home, cwd: root });
    writeFileSync(path.join(root, "new.txt"), "new\n");
    const next = await two.take({ ref, previous: light.id });
    expect(isLightId(next.id)).toBe(false);
    expect(next.changes.map((change) => `${change.change} ${change.path}`)).toEqual([
      "added new.txt",
    ]);
    expect(inStore(two.place.gitDir, "rev-parse", `${next.id}^`)).toBe(first.id);
    expect(inStore(two.place.gitDir, "show", `${next.id}:a.txt`)).toBe("light edit");
    expect(inStore(two.place.gitDir, "rev-parse", ref)).toBe(next.id);
    inStore(two.place.gitDir, "fsck", "--strict", "--no-dangling");
  });

  it("checkpoints gc drops the records of gone sessions, keeps the live ones: a rewind to each survivor works, fsck clean", async () => {
    const { home, root } = repo();
    const store = await openCheckpointStore({ home, cwd: root });
    const live = "refs/tapedeck/sessions/live";
    const gone = "refs/tapedeck/sessions/gone";
    let livePrevious = (await store.take({ ref: live })).id;
    // (a base of the same tree taken in the same second would be the same commit, and kept)
    writeFileSync(path.join(root, "only-gone-saw.txt"), "x\n");
    let gonePrevious = (await store.take({ ref: gone })).id;
    const survivors: { id: string; files: Record<string, string> }[] = [];
    const dropped: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      writeFileSync(path.join(root, `live-${index}.txt`), `live ${index}\n`);
      livePrevious = (await store.take({ ref: live, previous: livePrevious })).id;
      survivors.push({ id: livePrevious, files: snapshot(root) });
      writeFileSync(path.join(root, `gone-${index}.txt`), `gone ${index}\n`);
      gonePrevious = (await store.take({ ref: gone, previous: gonePrevious })).id;
      dropped.push(gonePrevious);
    }
    const before = readFileSync(path.join(store.dir, LIGHT_FILE)).length;
    await checkpointStorage(home).reclaim(new Set(["live"]), { dryRun: false });
    expect(readFileSync(path.join(store.dir, LIGHT_FILE)).length).toBeLessThan(before);
    const reader = await openCheckpointStore({ home, cwd: root });
    for (const id of dropped) expect(await reader.treeOf(id)).toBeUndefined();
    inStore(reader.place.gitDir, "fsck", "--strict", "--no-dangling");
    for (const survivor of [...survivors].reverse()) {
      await applyRestore(reader, await planRestore(reader, { target: survivor.id }), {});
      expect(snapshot(root)).toEqual(survivor.files);
    }
    // gc again after the rewinds (undo checkpoints, built trees): still clean
    await checkpointStorage(home).reclaim(new Set(["live"]), { dryRun: false });
    inStore(reader.place.gitDir, "fsck", "--strict", "--no-dangling");
  }, 60_000);
});
