/**
 * `pnpm bench` (team index): on the generated corpus, push throughput into PostgreSQL vs SQLite
 * index throughput, newest-first and relevance p50/p95 vs the SQLite engine and `rg`,
 * `listSessions` over every session, database size / JSONL size — and the measurement behind the
 * full-text choice: the tsvector (GIN) search vs a `pg_trgm` GIN index with `ILIKE` on the same
 * rows. Starts a throwaway server (Debian's postgresql) unless `TAPEDECK_BENCH_PG_URL` names one.
 *
 * Size: `BENCH_PG_SESSIONS` conversations of `BENCH_TURNS` turns plus `BENCH_PG_SMALL_SESSIONS`
 * one-turn sessions (defaults give ~10,000 sessions).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, percentile, printTable, sample, time } from "@tapedeck/bench";
import { startPostgresServer } from "@tapedeck/postgres-server";
import { createSessionStore } from "@tapedeck/session-store";
import pg from "pg";
import { createPostgresQueryEngine } from "../src/postgres/index";
import { createSqliteQueryEngine } from "../src/sqlite/index";
import { random, vocabulary, writeCorpus } from "./corpus";

const bigSessions = Number(process.env.BENCH_PG_SESSIONS ?? 1500);
const smallSessions = Number(process.env.BENCH_PG_SMALL_SESSIONS ?? 8500);
const turns = Number(process.env.BENCH_TURNS ?? 6);

function fileSize(path: string): number {
  try {
    return fs.statSync(path).size;
  } catch {
    return 0;
  }
}

function grepTool(): { command: string; args: (term: string, path: string) => string[] } {
  const rg = spawnSync("rg", ["--version"]);
  if (rg.status === 0) return { command: "rg", args: (term, path) => ["-F", "-c", term, path] };
  return { command: "grep", args: (term, path) => ["-r", "-F", "-c", term, path] };
}

async function main(): Promise<void> {
  const server =
    process.env.TAPEDECK_BENCH_PG_URL === undefined ? await startPostgresServer() : undefined;
  const url = process.env.TAPEDECK_BENCH_PG_URL ?? server!.url;
  const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-pg-bench-"));
  try {
    const corpus = writeCorpus({ home, sessions: bigSessions, turns, smallSessions });
    console.log(
      `corpus: ${corpus.events.toLocaleString("en-US")} events in ${corpus.sessions.toLocaleString("en-US")} sessions, ${(corpus.bytes / 1e6).toFixed(1)} MB of JSONL`,
    );
    const store = createSessionStore({ home });
    const sqlite = createSqliteQueryEngine({ path: join(home, "index.sqlite"), store });
    const sqliteMs = await time(() => sqlite.rebuild());

    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const database = `bench_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${database}`;
    const engine = await createPostgresQueryEngine({ url: dbUrl.toString() });
    const pushMs = await time(() => engine.push(store, { host: "bench" }));
    const client = new pg.Client({ connectionString: dbUrl.toString() });
    await client.connect();
    await client.query("VACUUM ANALYZE");
    const size = Number(
      (await client.query<{ size: string }>("SELECT pg_database_size(current_database()) AS size"))
        .rows[0]!.size,
    );

    const terms = searchTerms();
    const search = await measureSearch(engine, sqlite, terms, home);
    const pgList = await listPages(engine);
    const sqliteList = await listPages(sqlite);
    const trigramMeasures = await measureTrigram(client, terms);
    await client.end();
    await engine.close();
    await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
    await admin.end();
    sqlite.close();

    const m: Measures = {
      corpus,
      home,
      pushMs,
      sqliteMs,
      size,
      ...search,
      pgList,
      sqliteList,
      ...trigramMeasures,
    };
    printTable("Team index (PostgreSQL) vs SQLite and rg", teamRows(m));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    await server?.stop();
  }
}

type TeamEngine = Awaited<ReturnType<typeof createPostgresQueryEngine>>;
type AnyEngine = TeamEngine | ReturnType<typeof createSqliteQueryEngine>;
const all = { all: true } as const;

/** Technical words, common words, two-character Chinese words and two-word queries. */
function searchTerms(): string[] {
  const rand = random(11);
  const pick = (list: readonly string[]) => list[Math.floor(rand() * list.length)]!;
  const terms: string[] = [];
  for (let index = 0; index < 25; index += 1) terms.push(pick(vocabulary.technical));
  for (let index = 0; index < 10; index += 1) terms.push(pick(vocabulary.common));
  for (let index = 0; index < 8; index += 1) terms.push(pick(vocabulary.chinese).slice(0, 2));
  for (let index = 0; index < 7; index += 1)
    terms.push(`${pick(vocabulary.technical)} ${pick(vocabulary.technical)}`);
  return terms;
}

/** Newest-first and relevance search on both engines (each warmed first), and grep. */
async function measureSearch(
  engine: TeamEngine,
  sqlite: ReturnType<typeof createSqliteQueryEngine>,
  terms: readonly string[],
  home: string,
) {
  const run = (target: AnyEngine, order: "newest" | "relevance"): Promise<number[]> =>
    sample(terms.length, async (index) => {
      await target.searchEvents(all, { text: terms[index]!, order, limit: 20 });
    });
  // Warm both (first queries load pages from disk), then measure.
  await run(engine, "newest");
  await run(sqlite, "newest");
  const pgNewest = await run(engine, "newest");
  const sqliteNewest = await run(sqlite, "newest");
  const pgRelevance = await run(engine, "relevance");
  const sqliteRelevance = await run(sqlite, "relevance");
  const grep = grepTool();
  const grepTerms = terms.filter((_, index) => index % 5 === 0);
  const grepTimes = await sample(grepTerms.length, (index) => {
    spawnSync(grep.command, grep.args(grepTerms[index]!, join(home, "sessions")), {
      maxBuffer: 1 << 26,
    });
  });
  return { pgNewest, sqliteNewest, pgRelevance, sqliteRelevance, grep, grepTimes };
}

/** Ten samples of listing 5 pages of 50 sessions, cursor to cursor. */
function listPages(target: AnyEngine): Promise<number[]> {
  return sample(10, async () => {
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const result = await target.listSessions(all, {
        limit: 50,
        ...(cursor === undefined ? {} : { cursor }),
      });
      cursor = result.nextCursor ?? undefined;
    }
  });
}

/** The alternative full-text design: trigrams over the stored JSON with ILIKE. */
async function measureTrigram(client: pg.Client, terms: readonly string[]) {
  await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
  const trigramBuildMs = await time(() =>
    client.query("CREATE INDEX bench_trgm ON tapedeck_events USING gin (line gin_trgm_ops)"),
  );
  const trigramBytes = Number(
    (await client.query<{ size: string }>("SELECT pg_relation_size('bench_trgm') AS size")).rows[0]!
      .size,
  );
  const ginBytes = Number(
    (
      await client.query<{ size: string }>(
        "SELECT pg_relation_size('tapedeck_events_body') AS size",
      )
    ).rows[0]!.size,
  );
  const trigram = await sample(terms.length, async (index) => {
    const words = terms[index]!.split(" ");
    await client.query(
      `SELECT session_id, seq FROM tapedeck_events WHERE ${words
        .map((_, word) => `line ILIKE $${word + 1}`)
        .join(" AND ")} ORDER BY ts_ms DESC, seq DESC LIMIT 21`,
      words.map((word) => `%${word}%`),
    );
  });
  return { trigramBuildMs, trigramBytes, ginBytes, trigram };
}

/** What {@link main} measured, for the table. */
type Measures = {
  corpus: ReturnType<typeof writeCorpus>;
  home: string;
  pushMs: number;
  sqliteMs: number;
  size: number;
  pgList: number[];
  sqliteList: number[];
} & Awaited<ReturnType<typeof measureSearch>> &
  Awaited<ReturnType<typeof measureTrigram>>;

/** The table's rows. */
function teamRows(m: Measures): BenchRow[] {
  return [
    {
      name: `push (${m.corpus.events.toLocaleString("en-US")} events)`,
      value: m.corpus.events / (m.pushMs / 1000),
      unit: "events/s",
      baseline: m.corpus.events / (m.sqliteMs / 1000),
      baselineName: "SQLite index rebuild",
      better: "higher",
      goal: "≥ 0.5×",
    },
    {
      name: "newest-first p50",
      value: percentile(m.pgNewest, 50),
      unit: "ms",
      baseline: percentile(m.sqliteNewest, 50),
      baselineName: "SQLite engine",
      better: "lower",
    },
    {
      name: "newest-first p95",
      value: percentile(m.pgNewest, 95),
      unit: "ms",
      baseline: percentile(m.sqliteNewest, 95),
      baselineName: "SQLite engine",
      better: "lower",
      goal: "≤ 50 ms",
    },
    {
      name: "newest-first p50 vs rg",
      value: percentile(m.pgNewest, 50),
      unit: "ms",
      baseline: percentile(m.grepTimes, 50),
      baselineName: `${m.grep.command} -F -c`,
      better: "lower",
    },
    {
      name: "relevance p50",
      value: percentile(m.pgRelevance, 50),
      unit: "ms",
      baseline: percentile(m.sqliteRelevance, 50),
      baselineName: "SQLite engine",
      better: "lower",
    },
    {
      name: "relevance p95",
      value: percentile(m.pgRelevance, 95),
      unit: "ms",
      baseline: percentile(m.sqliteRelevance, 95),
      baselineName: "SQLite engine",
      better: "lower",
      goal: "≤ 150 ms",
    },
    {
      name: `listSessions, 5 pages of 50 (${m.corpus.sessions.toLocaleString("en-US")} sessions) p50`,
      value: percentile(m.pgList, 50),
      unit: "ms",
      baseline: percentile(m.sqliteList, 50),
      baselineName: "SQLite engine",
      better: "lower",
    },
    {
      name: "database size / JSONL size",
      value: m.size / m.corpus.bytes,
      unit: "×",
      baseline:
        (fileSize(join(m.home, "index.sqlite")) + fileSize(join(m.home, "index.sqlite-wal"))) /
        m.corpus.bytes,
      baselineName: "SQLite index (positions only)",
      better: "lower",
    },
    {
      name: "tsvector newest-first p95 vs pg_trgm ILIKE",
      value: percentile(m.pgNewest, 95),
      unit: "ms",
      baseline: percentile(m.trigram, 95),
      baselineName: "pg_trgm GIN + ILIKE",
      better: "lower",
    },
    {
      name: "tsvector GIN size vs pg_trgm GIN size",
      value: m.ginBytes / 1e6,
      unit: "MB",
      baseline: m.trigramBytes / 1e6,
      baselineName: `pg_trgm GIN (built in ${(m.trigramBuildMs / 1000).toFixed(1)} s)`,
      better: "lower",
    },
  ];
}

await main();
