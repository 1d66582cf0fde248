import path from "node:path";
import { createSqliteQueryEngine, type SqliteQueryEngine } from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";
import { coalesce, type SessionIndex } from "./session-index";

/** Where the index lives: `<home>/index.sqlite`, shared with the `tapedeck` CLI. */
export function sqliteIndexPath(home: string): string {
  return path.join(home, "index.sqlite");
}

/**
 * The SQLite FTS5 index over a store. `sync()` ingests only the bytes appended since the last
 * sync, so keeping it current while the server runs costs little.
 */
export function createSqliteIndex(
  store: SessionStore,
  file = sqliteIndexPath(store.home),
): SessionIndex & { engine: SqliteQueryEngine; close(): void } {
  const engine = createSqliteQueryEngine({ path: file, store });
  const sync = coalesce(async () => {
    await engine.sync();
  });
  return { engine, sync, close: () => engine.close() };
}
