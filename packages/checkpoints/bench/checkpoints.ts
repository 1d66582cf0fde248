/**
 * `pnpm bench` for @tapedeck/checkpoints, paired in one run:
 * - a turn's checkpoint (≤ 10 files changed) on a generated repository and on this one, p50,
 *   against `git add -A && git write-tree` into a temporary index on the same tree;
 * - disk per checkpoint against the changed files' compressed (zlib) bytes;
 * - a rewind (plan + restore) of 100 changed files.
 *
 * TAPEDECK_BENCH_CHECKPOINT_FILES (default 20000) sizes the generated repository;
 * TAPEDECK_BENCH_CHECKPOINT_RUNS (default 30) the samples per row.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { type BenchRow, isolateBenchTmpdir, percentile, printTable, sample } from "@tapedeck/bench";
import { applyRestore, openCheckpointStore, planRestore } from "../src/index";

const FILES = Number(process.env.TAPEDECK_BENCH_CHECKPOINT_FILES ?? 20_000);
const RUNS = Number(process.env.TAPEDECK_BENCH_CHECKPOINT_RUNS ?? 30);
const tmp = isolateBenchTmpdir("tapedeck-bench-checkpoints-");
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@bench",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@bench",
};

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = gitEnv): string {
  return execFileSync("git", args, { cwd, env, stdio: ["ignore", "pipe", "ignore"] }).toString();
}

function folderBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
  }
  return bytes;
}

/** A repository of `count` small source-like files in nested folders, committed. */
function generateRepo(count: number): string {
  const root = path.join(tmp, "generated");
  for (let index = 0; index < count; index += 1) {
    const dir = path.join(root, `pkg${index % 40}`, `mod${index % 25}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, `file-${index}.ts`),
      `export const value${index} = ${index};\n// ${"x".repeat(200 + (index % 300))}\n`,
    );
  }
  writeFileSync(path.join(root, ".gitignore"), "node_modules/\n");
  git(root, ["init", "-q"]);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-qm", "generated"]);
  return root;
}

/** Tracked files of `root` (for choosing which to change). */
function trackedFiles(root: string): string[] {
  return git(root, ["ls-files"])
    .split("\n")
    .filter((line) => line.endsWith(".ts"));
}

/** Appends a line to `count` files; returns the changed files' compressed bytes. */
function changeFiles(root: string, files: readonly string[], count: number, round: number): number {
  let compressed = 0;
  for (let index = 0; index < count; index += 1) {
    const file = path.join(root, files[(round * count + index) % files.length] ?? "");
    const content = Buffer.concat([readFileSync(file), Buffer.from(`// round ${round}\n`)]);
    writeFileSync(file, content);
    compressed += deflateSync(content).length;
  }
  return compressed;
}

/** The baseline: `git add -A && git write-tree` into a fresh temporary index. */
function baselineSnapshot(root: string, scratch: string, objects: string | undefined): void {
  const index = path.join(tmp, `baseline-index-${Math.random().toString(36).slice(2)}`);
  const env: NodeJS.ProcessEnv = {
    ...gitEnv,
    GIT_DIR: scratch,
    GIT_WORK_TREE: root,
    GIT_INDEX_FILE: index,
  };
  if (objects !== undefined) env.GIT_ALTERNATE_OBJECT_DIRECTORIES = objects;
  git(root, ["add", "-A"], env);
  git(root, ["write-tree"], env);
}

async function measureRepo(label: string, root: string, objects: string | undefined) {
  const home = path.join(tmp, `home-${label}`);
  const store = await openCheckpointStore({ home, cwd: root });
  const ref = "refs/tapedeck/sessions/bench";
  let previous = (await store.take({ ref })).id;
  const files = trackedFiles(root);
  const scratch = path.join(tmp, `scratch-${label}`);
  git(tmp, ["init", "-q", "--bare", scratch]);
  let round = 0;
  let compressed = 0;
  const objectsDir = path.join(store.place.gitDir, "objects");
  const diskBefore = folderBytes(objectsDir);
  const engine = await sample(RUNS, async () => {
    round += 1;
    compressed += changeFiles(root, files, 10, round);
    previous = (await store.take({ ref, previous })).id;
  });
  const disk = folderBytes(objectsDir) - diskBefore;
  const baseline = await sample(Math.min(RUNS, 10), async () => {
    round += 1;
    changeFiles(root, files, 10, round);
    baselineSnapshot(root, scratch, objects);
  });
  return { store, previous, engine, baseline, disk, compressed, files };
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const generated = generateRepo(FILES);
  const gen = await measureRepo("generated", generated, path.join(generated, ".git", "objects"));
  rows.push({
    name: `checkpoint, ≤ 10 files changed, ${FILES.toLocaleString("en-US")}-file repo (p50)`,
    value: percentile(gen.engine, 50),
    unit: "ms",
    better: "lower",
    baseline: percentile(gen.baseline, 50),
    baselineName: "git add -A && git write-tree, temporary index",
    goal: "≤ 50 ms, faster than baseline",
  });
  rows.push({
    name: "disk per checkpoint (10 files changed)",
    value: gen.disk / RUNS,
    unit: "bytes",
    better: "lower",
    baseline: gen.compressed / RUNS,
    baselineName: "changed files, zlib-compressed",
    goal: "≤ 2× baseline",
  });
  // Rewind: 100 files changed, then restored.
  const ref = "refs/tapedeck/sessions/bench";
  const rewind = await sample(Math.min(RUNS, 10), async (run) => {
    const before = gen.previous;
    changeFiles(generated, gen.files, 100, 10_000 + run);
    const after = (await gen.store.take({ ref, previous: before })).id;
    const plan = await planRestore(gen.store, { target: before });
    await applyRestore(gen.store, plan, {});
    gen.previous = (await gen.store.take({ ref, previous: after })).id;
  });
  rows.push({
    name: "rewind of 100 changed files (plan + restore)",
    value: percentile(rewind, 50),
    unit: "ms",
    better: "lower",
    goal: "≤ 300 ms",
  });
  // This repository (read only: its .git is never written; the baseline uses a scratch GIT_DIR).
  const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
  const copy = path.join(tmp, "this-repo");
  git(tmp, ["clone", "-q", "--local", "--no-hardlinks", here, copy]);
  const own = await measureRepo("this-repo", copy, path.join(copy, ".git", "objects"));
  rows.push({
    name: "checkpoint, ≤ 10 files changed, this repository (p50)",
    value: percentile(own.engine, 50),
    unit: "ms",
    better: "lower",
    baseline: percentile(own.baseline, 50),
    baselineName: "git add -A && git write-tree, temporary index",
    goal: "≤ 50 ms, faster than baseline",
  });
  printTable(`@tapedeck/checkpoints (${os.cpus().length} cores, ${RUNS} runs)`, rows);
}

await main();
