/**
 * `pnpm bench` for the importers: import throughput (MB of source per second, everything from
 * reading the files to fsynced logs in a fresh home) against reading the same files and
 * `JSON.parse`-ing them line by line (an opencode export: the whole document), the least any
 * importer has to do. Goal ≥ 0.3×.
 *
 * The corpus is generated (deterministic, `corpus.ts`) in the shape of real transcripts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, printTable, sample, time } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { type ImportSource, importSessions } from "../src/index";
import { writeCorpus } from "./corpus";

const SESSIONS = Number(process.env.IMPORT_BENCH_SESSIONS ?? 60);
/** Paired runs of the baseline and the import per source (even: the order alternates). */
const PAIRS = Number(process.env.IMPORT_BENCH_PAIRS ?? 6);
const root = mkdtempSync(join(tmpdir(), "tapedeck-import-bench-"));

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** CPU milliseconds (user + system) since `start`. */
function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * The baseline: read each file, split it into lines, JSON.parse each line (an opencode export is
 * one JSON document: JSON.parse of the file).
 */
function parseOnly(files: readonly string[]): number {
  let count = 0;
  for (const file of files) {
    if (file.endsWith(".json")) {
      JSON.parse(readFileSync(file, "utf8"));
      count += 1;
      continue;
    }
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line !== "") {
        JSON.parse(line);
        count += 1;
      }
    }
  }
  return count;
}

const corpus = join(root, "corpus");
writeCorpus(corpus, SESSIONS);

const rows = [];
const baselineName = "read + JSON.parse";
for (const source of ["claude-code", "codex", "pi", "opencode"] as ImportSource[]) {
  const dir = join(corpus, source);
  const files = filesUnder(dir);
  const megabytes = files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024;
  // Paired samples in the order A B B A A B …: on a shared machine the load drifts and both sides
  // of each ratio see about the same; each side follows the other (and its garbage) equally often.
  const baseline: number[] = [];
  const baselineCpu: number[] = [];
  const ours: number[] = [];
  const oursCpu: number[] = [];
  const measureBaseline = async () => {
    const start = process.cpuUsage();
    baseline.push(await time(() => parseOnly(files)));
    baselineCpu.push(cpuMs(start));
  };
  const measureImport = async (run: number) => {
    const home = join(root, `home-${source}-${run}`);
    const start = process.cpuUsage();
    let summary: Awaited<ReturnType<typeof importSessions>> | undefined;
    const took = await time(async () => {
      summary = await importSessions({ store: createSessionStore({ home }), source, paths: [dir] });
    });
    if (summary?.counts.created !== SESSIONS)
      throw new Error(`${source}: ${JSON.stringify(summary?.counts)}`);
    ours.push(took);
    oursCpu.push(cpuMs(start));
  };
  for (let run = 0; run < PAIRS; run += 1) {
    if (run % 2 === 0) {
      await measureBaseline();
      await measureImport(run);
    } else {
      await measureImport(run);
      await measureBaseline();
    }
  }
  baseline.sort((a, b) => a - b);
  ours.sort((a, b) => a - b);
  rows.push({
    name: `${source}: import ${SESSIONS} sessions (${megabytes.toFixed(1)} MB)`,
    value: megabytes / (percentile(ours, 50) / 1000),
    unit: "MB/s",
    baseline: megabytes / (percentile(baseline, 50) / 1000),
    baselineName,
    better: "higher" as const,
    goal: "≥ 0.3×",
  });
  // CPU time: what the import costs without the waits for fsync (and for other processes).
  rows.push({
    name: `${source}: import, CPU time only`,
    value: megabytes / (median(oursCpu) / 1000),
    unit: "MB/s",
    baseline: megabytes / (median(baselineCpu) / 1000),
    baselineName,
    better: "higher" as const,
  });
  // Re-import of an unchanged folder: what a scheduled `tapedeck import` costs.
  const home = join(root, `home-${source}-0`);
  const again = await sample(3, () =>
    importSessions({ store: createSessionStore({ home }), source, paths: [dir] }),
  );
  rows.push({
    name: `${source}: re-import, nothing new`,
    value: megabytes / (percentile(again, 50) / 1000),
    unit: "MB/s",
    baseline: megabytes / (percentile(baseline, 50) / 1000),
    baselineName,
    better: "higher" as const,
  });
}
printTable("tapedeck import: throughput (median)", rows);
if (process.env.KEEP_CORPUS === undefined) rmSync(root, { recursive: true, force: true });
else console.log(root);
