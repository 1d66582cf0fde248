/**
 * Benchmark harness for `pnpm bench`: time things, then print one table per benchmark with the
 * ratio against the baseline a user would otherwise use.
 */
import { performance } from "node:perf_hooks";

export { type BenchProcess, isolateBenchTmpdir } from "./bench-tmpdir";

/** One measured row. */
export interface BenchRow {
  /** What was measured. */
  name: string;
  /** The measured value (ms, events/s, bytes… as `unit` says). */
  value: number;
  unit: string;
  /** The baseline's value in the same unit, when the row has one. */
  baseline?: number;
  /** What the baseline is (e.g. "JSON.parse of the same lines"). */
  baselineName?: string;
  /** `"higher"` when a bigger value is better (throughput), `"lower"` for times and sizes. */
  better: "higher" | "lower";
  /** The goal, as text (e.g. "≥ 0.5×"). */
  goal?: string;
}

/** Milliseconds taken by `fn` (awaited). */
export async function time(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs `fn` `runs` times and returns the sorted durations in ms. */
export async function sample(runs: number, fn: (index: number) => unknown): Promise<number[]> {
  const durations: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const start = performance.now();
    await fn(index);
    durations.push(performance.now() - start);
  }
  return durations.sort((a, b) => a - b);
}

/** The p-th percentile (0–100) of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Ratio in the direction where > 1 means "better than the baseline". */
export function ratio(row: BenchRow): number | undefined {
  if (row.baseline === undefined || row.baseline === 0 || row.value === 0) return undefined;
  return row.better === "higher" ? row.value / row.baseline : row.baseline / row.value;
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(3);
}

/** Prints a table of rows with their ratios (`×` > 1 means faster/smaller/better than baseline). */
export function printTable(title: string, rows: readonly BenchRow[]): void {
  const header = ["measurement", "value", "baseline", "ratio", "goal"];
  const body = rows.map((row) => {
    const r = ratio(row);
    return [
      row.name,
      `${format(row.value)} ${row.unit}`,
      row.baseline === undefined
        ? ""
        : `${format(row.baseline)} ${row.unit} (${row.baselineName ?? "baseline"})`,
      r === undefined ? "" : `${r.toFixed(2)}×`,
      row.goal ?? "",
    ];
  });
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((line) => line[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const cells of body) console.log(line(cells));
  console.log("\n(ratio > 1× means better than the baseline)");
}
