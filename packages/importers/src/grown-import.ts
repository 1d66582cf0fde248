/**
 * A grown source costs its new lines: continuous import keeps, per Codex rollout and Claude Code
 * transcript it imported, what the next look needs to convert only the bytes the file grew by
 * (`import/grown/<source>/<hash of the path>.json` in the home: read only for a file that
 * changed, so a quiet look never reads one). A record holds the file's inode, the bytes and lines
 * converted, the hash of the last 4 KB of them, the entries and skipped lines reported so far, the
 * converter's state, and the Tapedeck session the events went to with its last seq. The new lines
 * are converted from the state and appended through a writer that continues from the log's kept
 * tail: O(new lines) reading, converting and writing. Anything else converts the whole file, as
 * before: no record or another version, another inode, a file that shrank or whose old bytes'
 * hash differs, new bytes that end inside a line, a new sub-agent file, lines that do not continue
 * the state (a Claude Code branch), a log whose last seq is not the state's (continued here, or
 * written by another import), a session another process is writing.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SessionStore } from "@tapedeck/session-store";
import { z } from "zod";
import type { FileReport } from "./import-file";
import type { ImportSummary } from "./import-run";
import {
  countLines,
  draftOf,
  HASHED_BYTES,
  hashOf,
  type KeptConversion,
  type ReadMark,
  readFrom,
  resumeKept,
} from "./kept-conversion";
import { splitLines } from "./lines";
import { claudeSubagentFiles } from "./locate";
import type { ConvertedSession } from "./types";

/** Format of a record; bumped when a record's meaning changes (an older one is not used). */
export const GROWN_RECORD_VERSION = 1;

const skippedSchema = z.object({
  path: z.string(),
  line: z.number(),
  offset: z.number(),
  reason: z.string(),
});

const grownRecordSchema = z.object({
  v: z.literal(GROWN_RECORD_VERSION),
  path: z.string(),
  ino: z.number(),
  offset: z.number().int().positive(),
  lines: z.number().int().min(0),
  hash: z.string(),
  entries: z.number().int().min(0),
  /** Skipped while splitting lines, then by the converter: a report lists them in that order. */
  splitSkipped: z.array(skippedSchema),
  convertSkipped: z.array(skippedSchema),
  sessionId: z.string(),
  lastSeq: z.number().int().min(0),
  state: z.unknown(),
});
type GrownRecord = z.infer<typeof grownRecordSchema>;

/** The sources whose files are continued from a record. */
export type GrownSource = "codex" | "claude-code";

/** True for the sources {@link importGrown} continues. */
export function isGrownSource(source: string): source is GrownSource {
  return source === "codex" || source === "claude-code";
}

function recordPathOf(stateDir: string, source: GrownSource, path: string): string {
  return join(stateDir, "grown", source, `${hashOf(Buffer.from(path)).slice(0, 32)}.json`);
}

/** A record with whether its state was made by a converter of this process (no check needed). */
interface HeldRecord {
  record: GrownRecord;
  trusted: boolean;
}

/**
 * The records this process read or wrote last, by file, with what the file was then (size, mtime,
 * inode): a process that looks again and again (`--watch`, the viewer) reuses the record it wrote
 * while the file is unchanged, instead of reading, parsing and checking it again (its converter
 * state is O(entries)). Another process that wrote the record since is seen by the `stat`.
 */
const held = new Map<string, { held: HeldRecord; stamp: string }>();

function stampOf(file: string): string | undefined {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

function readRecord(stateDir: string, source: GrownSource, path: string): HeldRecord | undefined {
  const file = recordPathOf(stateDir, source, path);
  const stamp = stampOf(file);
  const known = held.get(file);
  held.delete(file);
  if (stamp === undefined) return undefined;
  if (known !== undefined && known.stamp === stamp) return known.held;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = grownRecordSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.path === path
      ? { record: parsed.data, trusted: false }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a record whose state a converter of this process made, and holds it. */
function writeRecord(stateDir: string, source: GrownSource, record: GrownRecord): void {
  const path = recordPathOf(stateDir, source, record.path);
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(record));
  renameSync(temp, path);
  const stamp = stampOf(path);
  if (stamp !== undefined) held.set(path, { held: { record, trusted: true }, stamp });
}

function forgetRecord(stateDir: string, source: GrownSource, path: string): void {
  const file = recordPathOf(stateDir, source, path);
  held.delete(file);
  rmSync(file, { force: true });
}

/**
 * Imports the lines `path` grew by since its record, into the session the record names. Returns
 * the file's report (as a whole import would have made it), or `undefined` when the file must be
 * converted whole (see the file's comment); then its record is forgotten.
 */
export async function importGrown(
  store: SessionStore,
  stateDir: string,
  source: GrownSource,
  path: string,
): Promise<FileReport | undefined> {
  const kept = readRecord(stateDir, source, path);
  if (kept === undefined) return undefined;
  const report = await continueFrom(store, source, kept.record, kept.trusted);
  if (report === undefined) forgetRecord(stateDir, source, path);
  else if (report.record !== undefined) writeRecord(stateDir, source, report.record);
  return report?.report;
}

async function continueFrom(
  store: SessionStore,
  source: GrownSource,
  record: GrownRecord,
  trusted: boolean,
): Promise<{ report: FileReport; record?: GrownRecord } | undefined> {
  const { path } = record;
  if (source === "claude-code" && claudeSubagentFiles(path).length > 0) return undefined;
  const before = Math.min(record.offset, HASHED_BYTES);
  let read: ReturnType<typeof readFrom>;
  try {
    read = readFrom(path, record.offset - before);
  } catch {
    return undefined;
  }
  if (read.ino !== record.ino || read.size < record.offset) return undefined;
  if (hashOf(read.bytes.subarray(0, before)) !== record.hash) return undefined;
  const grown = read.bytes.subarray(before);
  if (grown.length > 0 && grown[grown.length - 1] !== 10) return undefined;
  const split = splitLines(grown, {
    path,
    from: { line: record.lines + 1, offset: record.offset },
  });
  const resumed = resumeKept(source, record.state, { path, lines: split.lines }, trusted);
  const draft = draftOf(resumed?.state);
  if (resumed === undefined || draft === undefined) return undefined;
  const [session, ...others] = resumed.conversion.sessions;
  if (others.length > 0) return undefined;
  const newEvents = session?.events.length ?? 0;
  // The state's events follow the recorded ones, or the record is not this state's.
  if (record.lastSeq + newEvents !== draft.nextSeq - 1) return undefined;
  const lastSeq = newEvents === 0 ? record.lastSeq : await append(store, record, session!);
  if (lastSeq === undefined) return undefined;
  const next: GrownRecord = {
    ...record,
    offset: read.size,
    lines: record.lines + countLines(grown),
    hash: hashOf(read.bytes.subarray(Math.max(0, read.bytes.length - HASHED_BYTES))),
    entries: record.entries + resumed.conversion.entries,
    splitSkipped: [...record.splitSkipped, ...split.skipped],
    convertSkipped: [...record.convertSkipped, ...resumed.conversion.skipped],
    lastSeq,
    state: resumed.state,
  };
  const key = draftOf(record.state)?.key ?? draft.key;
  return {
    report: {
      path,
      bytes: read.size,
      entries: next.entries,
      sessions: [
        {
          key,
          sessionId: record.sessionId,
          action: newEvents === 0 ? "unchanged" : "appended",
          newEvents,
        },
      ],
      skipped: [...next.splitSkipped, ...next.convertSkipped],
    },
    ...(grown.length === 0 ? {} : { record: next }),
  };
}

/**
 * Appends the new events to the recorded session when its log ends where the record says;
 * returns the log's last seq after, or `undefined` (nothing written) otherwise.
 */
async function append(
  store: SessionStore,
  record: GrownRecord,
  session: ConvertedSession,
): Promise<number | undefined> {
  if (!store.hasLog(record.sessionId)) return undefined;
  for (const { data, mediaType } of session.blobs?.values() ?? []) {
    store.putBlob(data, { mediaType });
  }
  let writer: Awaited<ReturnType<SessionStore["openWriter"]>>;
  try {
    writer = await store.openWriter(record.sessionId);
  } catch {
    // The whole import waits for a busy session and reports what else went wrong.
    return undefined;
  }
  try {
    if (writer.lastSeq !== record.lastSeq) return undefined;
    await writer.append(session.events, { keepTimestamps: true });
    return writer.lastSeq;
  } finally {
    await writer.close();
  }
}

/**
 * Records, for each file of a whole import whose conversion kept a state, where the next look can
 * continue from; forgets the record of the others.
 */
export function recordWhole(
  stateDir: string,
  source: GrownSource,
  summary: ImportSummary,
  kept: ReadonlyMap<string, KeptConversion>,
): void {
  for (const report of summary.files) {
    const conversion = kept.get(report.path);
    const record = conversion === undefined ? undefined : recordOf(report, conversion);
    if (record === undefined) forgetRecord(stateDir, source, report.path);
    else writeRecord(stateDir, source, record);
  }
}

function recordOf(report: FileReport, kept: KeptConversion): GrownRecord | undefined {
  const draft = draftOf(kept.state);
  const [outcome, ...others] = report.sessions;
  if (report.error !== undefined || draft === undefined || !kept.read.whole) return undefined;
  if (outcome === undefined || others.length > 0) return undefined;
  if (outcome.key.tool !== draft.key.tool || outcome.key.sessionId !== draft.key.sessionId) {
    return undefined;
  }
  const read: ReadMark = kept.read;
  return {
    v: GROWN_RECORD_VERSION,
    path: report.path,
    ino: read.ino,
    offset: read.offset,
    lines: read.lines,
    hash: read.hash,
    entries: report.entries,
    splitSkipped: kept.splitSkipped,
    convertSkipped: report.skipped.slice(kept.splitSkipped.length),
    sessionId: outcome.sessionId,
    lastSeq: draft.nextSeq - 1,
    state: kept.state,
  };
}
