import { coalesce, indexPath, openIndex, type SessionIndex } from "@tapedeck/host";
import type { SqliteQueryEngine } from "@tapedeck/session-query/sqlite";
import type { SessionStore } from "@tapedeck/session-store";

/** Where the index lives: `<home>/index.sqlite`, shared with the `tapedeck` CLI. */
export const sqliteIndexPath = indexPath;

/**
 * The SQLite FTS5 index over a store, opened by the host's one `openIndex` (created private; a
 * damaged file is moved aside and rebuilt from the logs). `sync()` ingests only the bytes appended
 * since the last sync, so keeping it current while the server runs costs little.
 */
export function createSqliteIndex(
  store: SessionStore,
  warn: (message: string) => void = (message) => console.error(message),
): SessionIndex & { engine: SqliteQueryEngine; close(): void } {
  const engine = openIndex(store, (text) => warn(text.trimEnd()));
  const sync = coalesce(async () => {
    await engine.sync();
  });
  return { engine, sync, close: () => engine.close() };
}
