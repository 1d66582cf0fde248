/**
 * `@tapedeck/host/search`: a search of the home's SQLite index that loads only what a fresh index
 * needs (issue #12: `tapedeck sessions search` must cost about what `rg` costs). When the change
 * journal says nothing changed since the index's last sync, the query runs on the index as it is,
 * its hits read back from their logs by position; the store's writers and replay, the log's zod
 * schemas and the index's writer are never loaded. Anything else (an index to sync, to create or
 * to move aside as damaged, a read-only home, a team index, a hit whose payload is in a blob)
 * answers `null`: the caller asks the reading host (`@tapedeck/host/query`), which does all of
 * that, and answers the same query.
 */
import { existsSync } from "node:fs";
import { TapedeckError } from "@tapedeck/session/core";
import type { EventHit, EventSearchQuery, Page, QueryScope } from "@tapedeck/session-query";
import { createSqliteQueryEngine, type IndexedStore } from "@tapedeck/session-query/sqlite";
import { defaultHome, LogFolder } from "@tapedeck/session-store/folder";
import { isAutoImportOn } from "./auto-import-setting";
import { homeReadOnly } from "./home-access";
import { indexPath, teamIndexUrl } from "./index-path";

/** Options of {@link searchFreshIndex}. */
export interface FreshSearchOptions {
  /** The environment (`TAPEDECK_HOME`, `TAPEDECK_INDEX_URL`). */
  env: Record<string, string | undefined>;
  /** A home other than `TAPEDECK_HOME`. */
  home?: string;
}

/** Thrown inside {@link searchFreshIndex} when the index needs a sync: the host answers instead. */
class IndexNotFresh extends TapedeckError {
  constructor() {
    super("INDEX_NOT_FRESH", "The index needs a sync.");
  }
}

const notFresh = (): never => {
  throw new IndexNotFresh();
};

/**
 * `engine.searchEvents(scope, query)` on the home's index when it is fresh, else `null` (see the
 * module comment). Validates the query like every engine.
 *
 * @throws InvalidQueryError for a query that does not validate.
 */
export async function searchFreshIndex(
  options: FreshSearchOptions,
  scope: QueryScope,
  query: EventSearchQuery,
): Promise<Page<EventHit> | null> {
  if (teamIndexUrl(options.env) !== undefined) return null;
  const folder = new LogFolder(options.home ?? defaultHome(options.env));
  const file = indexPath(folder.home);
  if (!existsSync(file) || homeReadOnly(folder.home) !== undefined) return null;
  // Auto import runs before every `sessions` command: this bundle cannot import, the host can.
  if (isAutoImportOn(folder.home)) return null;
  // The store's side of a sync that finds nothing to do: the journal's answer, when it names no
  // change; anything a sync with work would ask for sends the search to the host.
  const store: IndexedStore = {
    async changesSince(cursor) {
      const read = folder.journalChanges(cursor);
      if (!read.ok || read.folderChanged || read.changes.sessionIds.length > 0) return notFresh();
      return read.changes;
    },
    openLogReader: (sessionId) => folder.openLogReader(sessionId),
    entry: notFresh,
    read: notFresh,
    readSession: notFresh,
    announceChange: notFresh,
  };
  let engine: ReturnType<typeof createSqliteQueryEngine> | undefined;
  try {
    engine = createSqliteQueryEngine({ path: file, store });
    await engine.sync();
  } catch {
    // Not fresh, damaged, locked, another schema version: the host decides what to do with it.
    engine?.close();
    return null;
  }
  try {
    return await engine.searchEvents(scope, query);
  } catch (error) {
    // A hit whose payload is in a blob: this bundle has no blob store, the host reads it.
    if (TapedeckError.isInstance(error) && error.code === "BLOB_NOT_LOADED") return null;
    throw error;
  } finally {
    engine.close();
  }
}
