import { existsSync, renameSync } from "node:fs";
import path from "node:path";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";
import { coalesce, type SessionIndex } from "./session-index";

/** Where the index lives: `<home>/index.sqlite`, shared with the `tapedeck` CLI. */
export function sqliteIndexPath(home: string): string {
  return path.join(home, "index.sqlite");
}

/** SQLite's answers for a file that is not (or no longer) a readable database. */
const DAMAGED_INDEX_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/**
 * Opens the index; a damaged file (derived data) is moved aside to `<file>.damaged-<time>`, with
 * its `-wal` and `-shm`, and a new index is built from the logs instead of failing the start.
 */
function openIndexFile(
  store: SessionStore,
  file: string,
  warn: (message: string) => void,
): SqliteQueryEngine {
  try {
    return createSqliteQueryEngine({ path: file, store });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !DAMAGED_INDEX_CODES.has(code)) throw error;
    const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    for (const suffix of ["", "-wal", "-shm"]) {
      if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, `${aside}${suffix}`);
    }
    warn(
      `The search index ${file} was damaged (${(error as Error).message}); moved it to ${aside} and rebuilding it from the logs.`,
    );
    return createSqliteQueryEngine({ path: file, store });
  }
}

/**
 * The SQLite FTS5 index over a store. `sync()` ingests only the bytes appended since the last
 * sync, so keeping it current while the server runs costs little.
 */
export function createSqliteIndex(
  store: SessionStore,
  file = sqliteIndexPath(store.home),
  warn: (message: string) => void = (message) => console.error(message),
): SessionIndex & { engine: SqliteQueryEngine; close(): void } {
  const engine = openIndexFile(store, file, warn);
  const sync = coalesce(async () => {
    await engine.sync();
  });
  return { engine, sync, close: () => engine.close() };
}
