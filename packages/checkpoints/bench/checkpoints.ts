/**
 * `pnpm bench` for @tapedeck/checkpoints, paired in one run:
 * - a turn's checkpoint (≤ 10 files changed) on a generated repository and on this one, p50,
 *   against `git add -A && git write-tree` into a temporary index on the same tree; on the
 *   generated one also with the file-system monitor (a second store on the same files, in the
 *   same rounds), p50 and p90, its set-up time and watch count apart;
 * - disk per checkpoint against the changed files' compressed (zlib) bytes;
 * - a rewind (plan + restore) of 100 changed files.
 *
 * Ours and the baseline alternate round by round; the paired row is the median of per-round
 * ratios, the figure that survives a loaded machine.
 *
 * TAPEDECK_BENCH_CHECKPOINT_FILES (default 20000) sizes the generated repository;
 * TAPEDECK_BENCH_CHECKPOINT_RUNS (default 30) the samples per row;
 * TAPEDECK_BENCH_CHECKPOINT_DISK_RUNS (default 150) the checkpoints of the disk-as-stored rows.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { type BenchRow, isolateBenchTmpdir, percentile, printTable, time } from "@tapedeck/bench";
import { applyRestore, type CheckpointStore, openCheckpointStore, planRestore } from "../src/index";

const FILES = Number(process.env.TAPEDECK_BENCH_CHECKPOINT_FILES ?? 20_000);
const RUNS = Number(process.env.TAPEDECK_BENCH_CHECKPOINT_RUNS ?? 30);
const DISK_RUNS = Number(process.env.TAPEDECK_BENCH_CHECKPOINT_DISK_RUNS ?? 150);
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

/** Bytes of the files under `dir`: their sizes, or (`allocated`) the blocks they take on disk. */
function folderBytes(dir: string, allocated = false): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) bytes += folderBytes(full, allocated);
    else {
      const info = statSync(full);
      bytes += allocated ? info.blocks * 512 : info.size;
    }
  }
  return bytes;
}

/**
 * What a store keeps per checkpoint: its objects folder plus the light-checkpoint record file
 * (the private index is rewritten in place, not grown, and was never counted).
 */
function storeBytes(store: CheckpointStore, allocated = false): number {
  const records = statSync(path.join(store.dir, "light-checkpoints"), { throwIfNoEntry: false });
  const recordBytes = records === undefined ? 0 : allocated ? records.blocks * 512 : records.size;
  return folderBytes(path.join(store.place.gitDir, "objects"), allocated) + recordBytes;
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

/** Median of `baseline / engine` over paired rounds (> 1: ours is faster). */
function pairedRatio(engine: readonly number[], baseline: readonly number[]): number {
  const ratios = engine.map((value, index) => (baseline[index] ?? Number.NaN) / value);
  return percentile(
    ratios.filter(Number.isFinite).sort((a, b) => a - b),
    50,
  );
}

/**
 * Paired rounds on one repository: each round changes 10 files, takes a checkpoint, then runs
 * the baseline on the same files, so both see the same load.
 */
async function measureRepo(
  label: string,
  root: string,
  objects: string | undefined,
  withMonitor = false,
) {
  const home = path.join(tmp, `home-${label}`);
  const store = await openCheckpointStore({ home, cwd: root });
  const ref = "refs/tapedeck/sessions/bench";
  let previous = (await store.take({ ref })).id;
  const monitored = withMonitor ? await openMonitored(label, root) : undefined;
  const files = trackedFiles(root);
  const scratch = path.join(tmp, `scratch-${label}`);
  git(tmp, ["init", "-q", "--bare", scratch]);
  let compressed = 0;
  // Packed as reclaim's gc leaves a store, before and after: what a checkpoint costs once packed.
  const gc = () => git(tmp, [`--git-dir=${store.place.gitDir}`, "gc", "--quiet", "--prune=now"]);
  gc();
  const packedBefore = storeBytes(store);
  const engine: number[] = [];
  const baseline: number[] = [];
  for (let round = 1; round <= RUNS; round += 1) {
    compressed += changeFiles(root, files, 10, round);
    engine.push(
      await time(async () => {
        previous = (await store.take({ ref, previous })).id;
      }),
    );
    if (monitored !== undefined) await monitored.turn();
    baseline.push(await time(() => baselineSnapshot(root, scratch, objects)));
  }
  const monitoredReport = monitored?.report(engine);
  await monitored?.store.close();
  gc();
  const packed = storeBytes(store) - packedBefore;
  const paired = pairedRatio(engine, baseline);
  engine.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  return {
    store,
    previous,
    engine,
    baseline,
    paired,
    packed,
    compressed,
    files,
    monitored: monitoredReport,
  };
}

/**
 * A second store on the same workspace with the file-system monitor: opened, its watcher's set-up
 * timed, two checkpoints taken (the first before the watcher is ready, the second hands git its
 * first token); then one checkpoint a round, timed, with how git was answered.
 */
async function openMonitored(label: string, root: string) {
  const store = await openCheckpointStore({
    home: path.join(tmp, `home-${label}-monitored`),
    cwd: root,
    monitor: true,
  });
  const monitor = store.monitor;
  if (monitor === undefined) throw new Error("no monitor");
  const ref = "refs/tapedeck/sessions/bench";
  let previous = (await store.take({ ref })).id;
  await monitor.whenReady();
  previous = (await store.take({ ref, previous })).id;
  const turns: number[] = [];
  let listed = 0;
  return {
    store,
    async turn() {
      turns.push(
        await time(async () => {
          previous = (await store.take({ ref, previous })).id;
        }),
      );
      if (monitor.lastAnswer?.everything === false) listed += 1;
    },
    /** `unmonitored`: the plain store's times of the same rounds, in round order. */
    report(unmonitored: readonly number[]) {
      return {
        // > 1: the monitored checkpoint was faster in the same round
        paired: pairedRatio(turns, unmonitored),
        turns: [...turns].sort((a, b) => a - b),
        listed,
        setupMs: monitor.setupMs ?? Number.NaN,
        watches: monitor.watchCount,
      };
    },
  };
}

/**
 * Disk as a store keeps it over a long session: `DISK_RUNS` checkpoints of 10 changed files each
 * (packing as it goes), apparent bytes and blocks allocated per checkpoint.
 */
async function measureSteadyDisk(root: string, files: readonly string[]) {
  const store = await openCheckpointStore({ home: path.join(tmp, "home-disk"), cwd: root });
  const ref = "refs/tapedeck/sessions/disk";
  let previous = (await store.take({ ref })).id;
  const bytesBefore = storeBytes(store);
  const blocksBefore = storeBytes(store, true);
  let compressed = 0;
  for (let round = 1; round <= DISK_RUNS; round += 1) {
    compressed += changeFiles(root, files, 10, 20_000 + round);
    previous = (await store.take({ ref, previous })).id;
  }
  return {
    bytes: (storeBytes(store) - bytesBefore) / DISK_RUNS,
    blocks: (storeBytes(store, true) - blocksBefore) / DISK_RUNS,
    compressed: compressed / DISK_RUNS,
  };
}

/** The monitored store's rows: turns p50 and p90, then its set-up apart. */
function monitoredRows(
  size: string,
  monitored: {
    turns: number[];
    paired: number;
    listed: number;
    setupMs: number;
    watches: number;
  },
  baseline: number[],
): BenchRow[] {
  const answered = `${monitored.listed}/${monitored.turns.length} answered from the watcher`;
  return [
    {
      name: `checkpoint with file-system monitor, ${size}-file repo (p50; ${answered})`,
      value: percentile(monitored.turns, 50),
      unit: "ms",
      better: "lower",
      baseline: percentile(baseline, 50),
      baselineName: "git add -A && git write-tree, temporary index",
      goal: "≤ 50 ms, faster than baseline",
    },
    {
      name: `checkpoint with file-system monitor, ${size}-file repo (p90)`,
      value: percentile(monitored.turns, 90),
      unit: "ms",
      better: "lower",
      baseline: percentile(baseline, 90),
      baselineName: "git add -A && git write-tree, temporary index",
    },
    {
      name: `checkpoint with monitor vs without, median of paired rounds, ${size}-file repo`,
      value: monitored.paired,
      unit: "× (unmonitored ÷ monitored)",
      better: "higher",
      goal: "> 1×",
    },
    {
      name: `file-system monitor set-up (walk + ${monitored.watches} watches), once per run`,
      value: monitored.setupMs,
      unit: "ms",
      better: "lower",
    },
  ];
}

/** The paired ratio as a row of its own (the p50 rows' ratio compares two separate medians). */
function pairedRow(where: string, paired: number): BenchRow {
  return {
    name: `checkpoint vs baseline, median of paired rounds, ${where}`,
    value: paired,
    unit: "× (baseline ÷ ours)",
    better: "higher",
    goal: "> 1×",
  };
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const generated = generateRepo(FILES);
  const gen = await measureRepo(
    "generated",
    generated,
    path.join(generated, ".git", "objects"),
    true,
  );
  const size = FILES.toLocaleString("en-US");
  rows.push({
    name: `checkpoint, ≤ 10 files changed, ${size}-file repo (p50)`,
    value: percentile(gen.engine, 50),
    unit: "ms",
    better: "lower",
    baseline: percentile(gen.baseline, 50),
    baselineName: "git add -A && git write-tree, temporary index",
    goal: "≤ 50 ms, faster than baseline",
  });
  rows.push(pairedRow(`${size}-file repo`, gen.paired));
  if (gen.monitored !== undefined) rows.push(...monitoredRows(size, gen.monitored, gen.baseline));
  const steady = await measureSteadyDisk(generated, gen.files);
  rows.push({
    name: `disk per checkpoint (10 files changed), as stored over ${DISK_RUNS} (packed as it goes)`,
    value: steady.bytes,
    unit: "bytes",
    better: "lower",
    baseline: steady.compressed,
    baselineName: "changed files, zlib-compressed",
    goal: "≤ 2× baseline",
  });
  rows.push({
    name: `disk per checkpoint, as stored over ${DISK_RUNS}, blocks allocated on disk`,
    value: steady.blocks,
    unit: "bytes",
    better: "lower",
    baseline: steady.compressed,
    baselineName: "changed files, zlib-compressed",
    goal: "≤ 2× baseline",
  });
  rows.push({
    name: "disk per checkpoint once packed (git gc, as reclaim does)",
    value: gen.packed / RUNS,
    unit: "bytes",
    better: "lower",
    baseline: gen.compressed / RUNS,
    baselineName: "changed files, zlib-compressed",
    goal: "≤ 2× baseline",
  });
  // Rewind: 100 files changed, then restored.
  const ref = "refs/tapedeck/sessions/bench";
  const rewind: number[] = [];
  for (let run = 0; run < Math.min(RUNS, 10); run += 1) {
    const before = gen.previous;
    changeFiles(generated, gen.files, 100, 10_000 + run);
    const after = (await gen.store.take({ ref, previous: before })).id;
    rewind.push(
      await time(async () => {
        const plan = await planRestore(gen.store, { target: before });
        await applyRestore(gen.store, plan, {});
      }),
    );
    gen.previous = (await gen.store.take({ ref, previous: after })).id;
  }
  rewind.sort((a, b) => a - b);
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
  rows.push(pairedRow("this repository", own.paired));
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  printTable(`@tapedeck/checkpoints (${os.cpus().length} cores, ${RUNS} runs, load ${load})`, rows);
}

await main();
