/**
 * Writes the benchmark corpus of `@tapedeck/session/testing` (`generateCorpus`) as JSONL logs
 * into `<home>/sessions/`, as a generated home.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { type CorpusOptions, generateCorpus } from "@tapedeck/session/testing";

export { random, textSource, vocabulary } from "@tapedeck/session/testing";

/** What was written. */
export interface CorpusStats {
  sessions: number;
  events: number;
  bytes: number;
  ids: string[];
}

/** Writes the corpus into `<home>/sessions/`; returns counts. */
export function writeCorpus(options: CorpusOptions & { home: string }): CorpusStats {
  const dir = join(options.home, "sessions");
  fs.mkdirSync(dir, { recursive: true });
  const stats: CorpusStats = { sessions: 0, events: 0, bytes: 0, ids: [] };
  for (const log of generateCorpus(options)) {
    const text = log.jsonl();
    fs.writeFileSync(join(dir, `${log.header.sessionId}.jsonl`), text);
    stats.sessions += 1;
    stats.events += log.events.length;
    stats.bytes += Buffer.byteLength(text);
    stats.ids.push(log.header.sessionId);
  }
  return stats;
}
