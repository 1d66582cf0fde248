import type { SessionQueryEngine } from "@tapedeck/session-query";
import { createSessionStore, defaultHome, type SessionStore } from "@tapedeck/session-store";
import { teamIndexUrl } from "./index-path";
import { syncedEngine, type Warn } from "./query-index";
import { resolveSessionId, sessionIdsOnDisk, shortIds } from "./session-ids";
import { openTeamIndex, type TeamIndex } from "./team-index";
import { AGENT_NAME, AGENT_VERSION } from "./version";

/** Options of {@link createQueryHost}. */
export interface QueryHostOptions {
  /** The environment (`TAPEDECK_HOME`, `TAPEDECK_INDEX_URL`). */
  env: Record<string, string | undefined>;
  /** A home other than `TAPEDECK_HOME`. */
  home?: string;
  /** Where notices for the person go (default stderr; never stdout, which may carry JSON-RPC). */
  warn?: Warn;
  /**
   * A team index (`postgres://…`) to query instead of the home's SQLite index; default
   * `TAPEDECK_INDEX_URL`.
   */
  indexUrl?: string;
}

/**
 * The reading half of the host: the home's store, its search index and session ids. Reading
 * commands (`tapedeck sessions …`, `tapedeck mcp`) build only this, so they neither load nor
 * evaluate the agent loop, its tools or the model clients (issue #12: a read-only query pays
 * only for what it uses). {@link createHost} builds on it.
 */
export interface QueryHost {
  store: SessionStore;
  /**
   * The search index, opened on first use and synced before each query: the home's SQLite index,
   * or the team index (PostgreSQL) when `TAPEDECK_INDEX_URL` is set, the home pushed before each
   * query.
   */
  engine: SessionQueryEngine & { close(): void };
  /** The team index when `TAPEDECK_INDEX_URL` is set, else `null`. */
  teamIndex: TeamIndex | null;
  /** A full id or a unique prefix (any short id shown) to the session id. */
  resolveSessionId(text: string): Promise<string>;
  /**
   * Short ids unique among every session of the home and `extra` (run ids shown beside them).
   * The only way a surface shortens an id.
   */
  shortIds(extra?: Iterable<string>): Promise<Map<string, string>>;
  /** Closes the index. */
  close(): void;
}

/** Opens the store and (lazily) the index of the home `options` name. */
export function createQueryHost(options: QueryHostOptions): QueryHost {
  const { env } = options;
  const store = createSessionStore({
    home: options.home ?? defaultHome(env),
    agent: { name: AGENT_NAME, version: AGENT_VERSION },
  });
  const indexUrl = teamIndexUrl(env, options.indexUrl);
  const team = indexUrl === undefined ? null : openTeamIndex(indexUrl, store);
  const engine = team?.engine ?? syncedEngine(store, options.warn);
  const elsewhere = team === null ? undefined : (prefix: string) => team.team.sessionIds(prefix);
  return {
    store,
    engine,
    teamIndex: team?.team ?? null,
    resolveSessionId: (text) => resolveSessionId(store, text, elsewhere),
    shortIds: async (extra = []) =>
      shortIds([
        ...(await sessionIdsOnDisk(store)),
        ...(elsewhere === undefined ? [] : await elsewhere("")),
        ...extra,
      ]),
    close: () => engine.close(),
  };
}
