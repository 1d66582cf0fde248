/**
 * Writes a generated Tapedeck home for the speed benchmarks: `sessions` sessions of about `turns`
 * turns each (the default 2,000 × 25 is ≈ 600,000 events, ≈ 200 MB: the history of a heavy Codex
 * or Claude Code user). Deterministic for a seed; an existing home with the same shape is reused.
 *
 *   tsx bench/generate-home.ts <home> [--sessions 2000] [--turns 25] [--seed 42]
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateCorpus } from "@tapedeck/session/testing";

/** What a generated home holds. */
export interface GeneratedHome {
  home: string;
  sessions: number;
  events: number;
  bytes: number;
}

/** Writes (or reuses, when `<home>/generated.json` says the same shape) a generated home. */
export function generateHome(
  home: string,
  options: { sessions: number; turns: number; seed?: number },
): GeneratedHome {
  const marker = join(home, "generated.json");
  const shape = JSON.stringify({ ...options, seed: options.seed ?? 42, version: 2 });
  try {
    const saved = JSON.parse(fs.readFileSync(marker, "utf8")) as { shape: string } & GeneratedHome;
    if (saved.shape === shape) return { ...saved, home };
  } catch {
    // not generated yet
  }
  fs.rmSync(home, { recursive: true, force: true });
  const dir = join(home, "sessions");
  fs.mkdirSync(dir, { recursive: true });
  const result: GeneratedHome = { home, sessions: 0, events: 0, bytes: 0 };
  for (const log of generateCorpus({
    sessions: options.sessions,
    turns: options.turns,
    seed: options.seed ?? 42,
    // Spread like a real history: newest sessions last, over a year.
    start: new Date(Date.now() - 366 * 24 * 3600 * 1000),
    spanDays: 365,
    // Streamed answers in chunks of ten words: ≈ 12 events a turn, as real logs average.
    chunkWords: 10,
  })) {
    const text = log.jsonl();
    fs.writeFileSync(join(dir, `${log.header.sessionId}.jsonl`), text);
    result.sessions += 1;
    result.events += log.events.length;
    result.bytes += Buffer.byteLength(text);
  }
  fs.writeFileSync(marker, JSON.stringify({ ...result, shape }));
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      sessions: { type: "string", default: "2000" },
      turns: { type: "string", default: "25" },
      seed: { type: "string", default: "42" },
    },
  });
  const home = positionals[0];
  if (home === undefined) throw new Error("usage: generate-home.ts <home> [--sessions N]");
  const started = Date.now();
  const made = generateHome(home, {
    sessions: Number(values.sessions),
    turns: Number(values.turns),
    seed: Number(values.seed),
  });
  console.log(
    `${made.home}: ${made.sessions} sessions, ${made.events} events, ${(made.bytes / 1e6).toFixed(1)} MB in ${Date.now() - started} ms`,
  );
}
