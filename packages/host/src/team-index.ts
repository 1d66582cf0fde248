/**
 * The team index as the host's query engine: with `TAPEDECK_INDEX_URL=postgres://…` every
 * surface queries one PostgreSQL database that many machines push into, instead of the home's
 * SQLite index. Before each query the home's new events are pushed (the store's change journal
 * makes that O(changes)), so a person sees their latest runs next to everyone else's.
 */
import type { SessionQueryEngine } from "@tapedeck/session-query";
import type {
  HostStats,
  PostgresQueryEngine,
  PushOptions,
  PushReport,
} from "@tapedeck/session-query/postgres";
import type { SessionStore } from "@tapedeck/session-store";

/** The team index operations a surface may call besides queries. */
export interface TeamIndex {
  /** `host:port/database` (never the password). */
  readonly where: string;
  /** Pushes the home's new events (see `PostgresQueryEngine.push`). */
  push(options?: PushOptions): Promise<PushReport>;
  /** Sessions, events and bytes per pushing host. */
  stats(): Promise<HostStats[]>;
  /** Ids in the index starting with `prefix` (to resolve ids of sessions logged elsewhere). */
  sessionIds(prefix?: string): Promise<string[]>;
}

/** `host:port/database` of a URL, without user and password. */
export function describeIndexUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port === "" ? "" : `:${parsed.port}`}${parsed.pathname}`;
  } catch {
    return "(unparseable TAPEDECK_INDEX_URL)";
  }
}

/**
 * Opens the team index lazily (the first query connects and migrates) and pushes the home before
 * each query. Connection problems surface on that first use as one sentence
 * (`IndexConnectionError`, `IndexSchemaError`).
 */
export function openTeamIndex(
  url: string,
  store: SessionStore,
): { engine: SessionQueryEngine & { close(): void }; team: TeamIndex } {
  let opened: Promise<PostgresQueryEngine> | undefined;
  const open = (): Promise<PostgresQueryEngine> => {
    // Loaded on first use: commands without a team index never read the driver.
    opened ??= import("@tapedeck/session-query/postgres").then(({ createPostgresQueryEngine }) =>
      createPostgresQueryEngine({ url }),
    );
    // A failed open is not cached: the next call tries again.
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };
  let pushing: Promise<unknown> | null = null;
  const push = async (options: PushOptions = {}): Promise<PushReport> => {
    const engine = await open();
    // One push at a time per process: later callers wait for the running one, then go on.
    while (pushing !== null) await pushing.catch(() => undefined);
    const running = engine.push(store, options);
    pushing = running;
    try {
      return await running;
    } finally {
      pushing = null;
    }
  };
  const ready = async (): Promise<PostgresQueryEngine> => {
    await push();
    return open();
  };
  const engine: SessionQueryEngine & { close(): void } = {
    searchSessions: async (scope, query) => (await ready()).searchSessions(scope, query),
    searchEvents: async (scope, query) => (await ready()).searchEvents(scope, query),
    listSessions: async (scope, options) => (await ready()).listSessions(scope, options),
    readSession: async (scope, sessionId) => (await ready()).readSession(scope, sessionId),
    traceEvent: async (scope, sessionId, seq) => (await ready()).traceEvent(scope, sessionId, seq),
    traceLineage: async (scope, sessionId) => (await ready()).traceLineage(scope, sessionId),
    close: () => {
      // Ends the pool; the process may exit once its sockets are closed.
      void opened?.then((open) => open.close()).catch(() => undefined);
    },
  };
  return {
    engine,
    team: {
      where: describeIndexUrl(url),
      push,
      stats: async () => (await open()).stats(),
      sessionIds: async (prefix) => (await open()).sessionIds(prefix),
    },
  };
}
