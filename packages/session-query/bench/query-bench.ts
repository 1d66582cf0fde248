/**
 * `pnpm bench`: index a generated corpus (≥ 500k events, ≥ 10,000 sessions, ~6% Chinese) with the
 * SQLite backend and compare against what a user would otherwise do.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, percentile, printTable, sample, time } from "@tapedeck/bench";
import type { SessionEventDraft } from "@tapedeck/session";
import { benchModelRequest, benchTurnStart } from "@tapedeck/session/testing";
import { createSessionStore } from "@tapedeck/session-store";
import Database from "better-sqlite3";
import { eventText } from "../src/index";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "../src/sqlite/index";
import { random, vocabulary, writeCorpus } from "./corpus";

const bigSessions = Number(process.env.BENCH_SESSIONS ?? 2000);
const smallSessions = Number(process.env.BENCH_SMALL_SESSIONS ?? 8000);
const turns = Number(process.env.BENCH_TURNS ?? 6);

const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-query-bench-"));
const sessionsDir = join(home, "sessions");

function fileSize(path: string): number {
  try {
    return fs.statSync(path).size;
  } catch {
    return 0;
  }
}

function grepTool(): { command: string; args: (term: string, path: string) => string[] } {
  const rg = spawnSync("rg", ["--version"]);
  if (rg.status === 0)
    return { command: "rg", args: (term, path) => ["-F", "-c", "--", term, path] };
  return { command: "grep", args: (term, path) => ["-r", "-F", "-c", "--", term, path] };
}

async function plainTableInsert(ids: readonly string[], path: string): Promise<number> {
  const store = createSessionStore({ home });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE events (id INTEGER PRIMARY KEY, session TEXT, seq INTEGER, offset INTEGER, length INTEGER, type TEXT, body TEXT)",
  );
  const insert = db.prepare(
    "INSERT INTO events (session, seq, offset, length, type, body) VALUES (?, ?, ?, ?, ?, ?)",
  );
  let count = 0;
  db.exec("BEGIN");
  for (const id of ids) {
    for await (const read of store.read(id)) {
      insert.run(
        id,
        read.event.seq,
        read.offset,
        read.end - read.offset,
        read.event.type,
        eventText(read.event),
      );
      count += 1;
    }
  }
  db.exec("COMMIT");
  db.close();
  return count;
}

function appendDrafts(runId: string, text: string): SessionEventDraft[] {
  const requestId = `bench_${runId.slice(-6)}`;
  return [
    benchTurnStart(runId, true),
    { type: "message", runId, role: "user", content: `appended question ${text}` },
    benchModelRequest(runId, requestId),
    ...["appended", " answer", " for", " you"].map(
      (chunk, index): SessionEventDraft => ({
        type: "assistant/chunk",
        runId,
        requestId,
        index,
        delta: { text: chunk },
      }),
    ),
    {
      type: "model/response",
      runId,
      requestId,
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: 4 },
    },
    { type: "message", runId, role: "assistant", content: "appended answer for you" },
    { type: "turn/end", runId, status: "completed" },
  ];
}

/** What {@link main} measured, for the table. */
interface Measures {
  corpus: ReturnType<typeof writeCorpus>;
  indexMs: number;
  plainMs: number;
  eventsPerSecond: number;
  plainPerSecond: number;
  indexBytes: number;
  grep: ReturnType<typeof grepTool>;
  grepTimes: number[];
  terms: string[];
  typed: string[];
  twoChar: string[];
  totalHits: number;
  newest: number[];
  relevance: number[];
  prefixNewest: number[];
  prefixRelevance: number[];
  prefixTwo: number[];
  prefixSessions: number[];
  oneSession: number[];
  oneGrep: number[];
  tagFilter: number[];
  joinFilter: number[];
  list: number[];
  headers: number[];
  syncMs: number;
}

async function main(): Promise<void> {
  console.log(`corpus in ${home}`);
  const started = performance.now();
  const corpus = writeCorpus({ home, sessions: bigSessions, turns, smallSessions });
  console.log(
    `generated ${corpus.events.toLocaleString("en-US")} events in ${corpus.sessions.toLocaleString("en-US")} sessions, ${(corpus.bytes / 1e6).toFixed(1)} MB of JSONL, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const store = createSessionStore({ home });
  const index = await measureIndex(corpus, store);
  const { dbPath } = index;
  const engine = createSqliteQueryEngine({ path: dbPath, store });
  const queries = queryTerms();
  const search = await measureSearch(engine, queries);
  const grep = grepTool();
  const grepTerms = queries.terms.filter((_, index) => index % 5 === 0);
  const grepTimes = await sample(grepTerms.length, (index) => {
    spawnSync(grep.command, grep.args(grepTerms[index]!, sessionsDir), { maxBuffer: 1 << 26 });
  });
  const bigIds = corpus.ids.slice(0, bigSessions);
  const oneSessionMeasures = await measureOneSession(engine, dbPath, queries.terms, bigIds, grep);
  const later = await measureListAndSync(engine, store, bigIds);
  const m: Measures = {
    corpus,
    ...index,
    ...queries,
    ...search,
    grep,
    grepTimes,
    ...oneSessionMeasures,
    ...later,
  };
  printTable("session-query: SQLite FTS5 backend", [
    ...indexAndSearchRows(m),
    ...prefixRows(m),
    ...otherRows(m),
  ]);
  console.log(
    `\n${m.terms.length} terms, ${m.totalHits} hits shown (limit 20); grep baseline over ${grepTerms.length} of them. Index ${(m.indexBytes / 1e6).toFixed(1)} MB, JSONL ${(corpus.bytes / 1e6).toFixed(1)} MB; full index ${(m.indexMs / 1000).toFixed(1)} s, plain insert ${(m.plainMs / 1000).toFixed(1)} s.`,
  );

  const example = await engine.searchEvents(all, { text: "数据库 连接", limit: 2 });
  console.log("\nexample: searchEvents({ text: '数据库 连接', limit: 2 })");
  for (const hit of example.items)
    console.log(`  ${hit.sessionId} #${hit.event.seq} ${hit.event.type}: ${hit.snippet}`);
  engine.close();
  fs.rmSync(home, { recursive: true, force: true });
}

const all = { all: true } as const;

/**
 * 1. Full index vs a plain-table insert of the same rows (same reader, same parsing). Two
 * interleaved rounds each, best of two: the machine is shared and the first pass warms caches.
 * 2. Index size (WAL folded in on close).
 */
async function measureIndex(
  corpus: ReturnType<typeof writeCorpus>,
  store: ReturnType<typeof createSessionStore>,
) {
  let dbPath = "";
  let engine: SqliteQueryEngine | undefined;
  let indexMs = Number.POSITIVE_INFINITY;
  let plainMs = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 2; round += 1) {
    plainMs = Math.min(
      plainMs,
      await time(() => plainTableInsert(corpus.ids, join(home, `plain-${round}.sqlite`))),
    );
    engine?.close();
    dbPath = join(home, `index-${round}.sqlite`);
    const fresh = createSqliteQueryEngine({ path: dbPath, store });
    engine = fresh;
    indexMs = Math.min(indexMs, await time(() => fresh.rebuild()));
  }
  const eventsPerSecond = corpus.events / (indexMs / 1000);
  const plainPerSecond = corpus.events / (plainMs / 1000);
  engine!.close();
  const indexBytes = fileSize(dbPath) + fileSize(`${dbPath}-wal`);
  return { dbPath, indexMs, plainMs, eventsPerSecond, plainPerSecond, indexBytes };
}

/**
 * 3. Search terms: technical words, common words, Chinese words, two-word queries; and for search
 * as you type, every prefix of 2+ characters of 12 words as it is typed (`co`, `com`, `comp`, …),
 * alone and after a complete first word.
 */
function queryTerms(): { terms: string[]; typed: string[]; twoChar: string[] } {
  const rand = random(7);
  const pickFrom = (list: readonly string[]) => list[Math.floor(rand() * list.length)]!;
  const terms: string[] = [];
  for (let index = 0; index < 25; index += 1) terms.push(pickFrom(vocabulary.technical));
  for (let index = 0; index < 10; index += 1) terms.push(pickFrom(vocabulary.common));
  for (let index = 0; index < 8; index += 1) terms.push(pickFrom(vocabulary.chinese));
  for (let index = 0; index < 7; index += 1) {
    terms.push(`${pickFrom(vocabulary.technical)} ${pickFrom(vocabulary.technical)}`);
  }
  const typedWords = [
    ...Array.from({ length: 8 }, () => pickFrom(vocabulary.technical)),
    ...Array.from({ length: 4 }, () => pickFrom(vocabulary.common).padEnd(2, "s")),
  ];
  const typed: string[] = [];
  typedWords.forEach((word, index) => {
    const before = index % 3 === 0 ? `${pickFrom(vocabulary.technical)} ` : "";
    for (let length = 2; length <= word.length; length += 1)
      typed.push(`${before}${word.slice(0, length)}`);
  });
  const twoChar = typed.filter((text) => !text.includes(" ") && text.length === 2);
  return { terms, typed, twoChar };
}

/** 3, 3b. Whole-word search (newest first, by relevance) and search as you type (`prefix: "last"`). */
async function measureSearch(
  engine: SqliteQueryEngine,
  { terms, typed, twoChar }: ReturnType<typeof queryTerms>,
) {
  let totalHits = 0;
  const newest = await sample(terms.length, async (index) => {
    totalHits += (await engine.searchEvents(all, { text: terms[index]!, limit: 20 })).items.length;
  });
  const relevance = await sample(terms.length, async (index) => {
    await engine.searchEvents(all, { text: terms[index]!, order: "relevance", limit: 20 });
  });
  const prefixNewest = await sample(typed.length, async (index) => {
    await engine.searchEvents(all, { text: typed[index]!, prefix: "last", limit: 20 });
  });
  const prefixRelevance = await sample(typed.length, async (index) => {
    await engine.searchEvents(all, {
      text: typed[index]!,
      prefix: "last",
      order: "relevance",
      limit: 20,
    });
  });
  const prefixTwo = await sample(twoChar.length, async (index) => {
    await engine.searchEvents(all, { text: twoChar[index]!, prefix: "last", limit: 20 });
  });
  const prefixSessions = await sample(typed.length, async (index) => {
    await engine.searchSessions(all, { text: typed[index]!, prefix: "last", limit: 20 });
  });
  return { totalHits, newest, relevance, prefixNewest, prefixRelevance, prefixTwo, prefixSessions };
}

/**
 * 4. One-session search vs grep over that one file. 4b. Why the session filter is an FTS term:
 * the same one-session relevance query with the session as a `tags` token inside MATCH vs as a
 * JOIN condition on the events table.
 */
async function measureOneSession(
  engine: SqliteQueryEngine,
  dbPath: string,
  terms: readonly string[],
  bigIds: readonly string[],
  grep: ReturnType<typeof grepTool>,
) {
  const oneSession = await sample(terms.length, async (index) => {
    await engine.searchEvents(all, {
      text: terms[index]!,
      sessionId: bigIds[(index * 37) % bigIds.length]!,
    });
  });
  const oneGrep = await sample(terms.length, (index) => {
    const file = join(sessionsDir, `${bigIds[(index * 37) % bigIds.length]!}.jsonl`);
    spawnSync(
      grep.command,
      grep.args(terms[index]!, file).filter((arg) => arg !== "-r"),
    );
  });
  const raw = new Database(dbPath, { readonly: true });
  const sessionRow = raw.prepare("SELECT id FROM sessions WHERE session_id = ?");
  const byTag = raw.prepare(
    "SELECT rowid FROM event_fts WHERE event_fts MATCH ? ORDER BY rank LIMIT 20",
  );
  const byJoin = raw.prepare(
    "SELECT f.rowid FROM event_fts f JOIN events e ON e.id = -f.rowid WHERE event_fts MATCH ? AND e.session = ? ORDER BY f.rank LIMIT 20",
  );
  const commonTerms = terms.slice(25, 35);
  const rowOf = (index: number) =>
    (sessionRow.get(bigIds[(index * 37) % bigIds.length]!) as { id: number }).id;
  const tagFilter = await sample(commonTerms.length, (index) => {
    byTag.all(`body : ("${commonTerms[index]!}") AND tags : s${rowOf(index)}`);
  });
  const joinFilter = await sample(commonTerms.length, (index) => {
    byJoin.all(`body : ("${commonTerms[index]!}")`, rowOf(index));
  });
  raw.close();
  return { oneSession, oneGrep, tagFilter, joinFilter };
}

/**
 * 5. listSessions at ≥ 10,000 sessions vs reading every file's header. 6. Incremental sync after
 * appending 10 events to 10 sessions vs a full rebuild.
 */
async function measureListAndSync(
  engine: SqliteQueryEngine,
  store: ReturnType<typeof createSessionStore>,
  bigIds: readonly string[],
) {
  const list = await sample(50, () => engine.listSessions(all, { limit: 50 }));
  const headers = await sample(3, async () => {
    const listings = await store.list();
    listings.sort((a, b) => (a.modifiedAt < b.modifiedAt ? 1 : -1));
  });
  for (let index = 0; index < 10; index += 1) {
    await store.append(
      bigIds[(index * 101) % bigIds.length]!,
      appendDrafts(`run-${index}-append`, `number ${index}`),
    );
  }
  let appended = 0;
  const syncMs = await time(async () => {
    appended = (await engine.sync()).eventsIndexed;
  });
  if (appended !== 100)
    throw new Error(`expected 100 appended events to be indexed, got ${appended}`);
  return { list, headers, syncMs };
}

/** The rows of the full index, its size and whole-word search. */
function indexAndSearchRows(m: Measures): BenchRow[] {
  return [
    {
      name: `full index (${m.corpus.events.toLocaleString("en-US")} events)`,
      value: m.eventsPerSecond,
      unit: "events/s",
      baseline: m.plainPerSecond,
      baselineName: "plain-table insert",
      better: "higher",
      goal: "≥ 0.5×",
    },
    {
      name: "index size / JSONL size",
      value: m.indexBytes / m.corpus.bytes,
      unit: "×",
      baseline: 1,
      baselineName: "JSONL",
      better: "lower",
      goal: "≤ 0.5 (≥ 2×)",
    },
    {
      name: "searchEvents newest-first p50",
      value: percentile(m.newest, 50),
      unit: "ms",
      baseline: percentile(m.grepTimes, 50),
      baselineName: `${m.grep.command} -F -c`,
      better: "lower",
      goal: "≥ 100×",
    },
    {
      name: "searchEvents newest-first p95",
      value: percentile(m.newest, 95),
      unit: "ms",
      better: "lower",
    },
    {
      name: "searchEvents relevance p50",
      value: percentile(m.relevance, 50),
      unit: "ms",
      baseline: percentile(m.grepTimes, 50),
      baselineName: `${m.grep.command} -F -c`,
      better: "lower",
    },
    {
      name: "searchEvents relevance p95",
      value: percentile(m.relevance, 95),
      unit: "ms",
      better: "lower",
      goal: "≤ 100 ms",
    },
  ];
}

/** The rows of search as you type. */
function prefixRows(m: Measures): BenchRow[] {
  return [
    {
      name: `prefix ("last") newest-first p50 (${m.typed.length} keystrokes)`,
      value: percentile(m.prefixNewest, 50),
      unit: "ms",
      baseline: percentile(m.newest, 50),
      baselineName: "whole-word newest-first",
      better: "lower",
    },
    {
      name: "prefix newest-first p95",
      value: percentile(m.prefixNewest, 95),
      unit: "ms",
      baseline: percentile(m.newest, 95),
      baselineName: "whole-word newest-first",
      better: "lower",
      goal: "≤ 100 ms",
    },
    {
      name: `prefix newest-first, 2-character prefixes p50 (${m.twoChar.length})`,
      value: percentile(m.prefixTwo, 50),
      unit: "ms",
      better: "lower",
    },
    {
      name: "prefix newest-first, 2-character prefixes p95",
      value: percentile(m.prefixTwo, 95),
      unit: "ms",
      better: "lower",
    },
    {
      name: "prefix relevance p50",
      value: percentile(m.prefixRelevance, 50),
      unit: "ms",
      baseline: percentile(m.relevance, 50),
      baselineName: "whole-word relevance",
      better: "lower",
    },
    {
      name: "prefix relevance p95",
      value: percentile(m.prefixRelevance, 95),
      unit: "ms",
      baseline: percentile(m.relevance, 95),
      baselineName: "whole-word relevance",
      better: "lower",
      goal: "≤ 100 ms",
    },
    {
      name: "prefix searchSessions p50",
      value: percentile(m.prefixSessions, 50),
      unit: "ms",
      better: "lower",
    },
    {
      name: "prefix searchSessions p95",
      value: percentile(m.prefixSessions, 95),
      unit: "ms",
      better: "lower",
    },
  ];
}

/** The rows of one-session search, listing and incremental sync. */
function otherRows(m: Measures): BenchRow[] {
  return [
    {
      name: "one-session search p50",
      value: percentile(m.oneSession, 50),
      unit: "ms",
      baseline: percentile(m.oneGrep, 50),
      baselineName: `${m.grep.command} one file`,
      better: "lower",
    },
    {
      name: "one-session relevance, session as FTS tag, p50 (common words)",
      value: percentile(m.tagFilter, 50),
      unit: "ms",
      baseline: percentile(m.joinFilter, 50),
      baselineName: "session as JOIN filter",
      better: "lower",
    },
    {
      name: `listSessions p50 (${m.corpus.sessions.toLocaleString("en-US")} sessions)`,
      value: percentile(m.list, 50),
      unit: "ms",
      baseline: percentile(m.headers, 50),
      baselineName: "read every header",
      better: "lower",
      goal: "≥ 100×",
    },
    {
      name: "sync() after 10 events × 10 sessions",
      value: m.syncMs,
      unit: "ms",
      baseline: m.indexMs,
      baselineName: "full rebuild",
      better: "lower",
    },
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  fs.rmSync(home, { recursive: true, force: true });
  process.exitCode = 1;
});
