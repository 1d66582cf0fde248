/**
 * The connection to the team index: a `pg` pool made from a URL (or one the caller owns), every
 * query's driver error turned into one sentence (`describeDriverError`), and transactions that
 * roll back whatever happens inside them.
 */
import pg from "pg";
import { describeDriverError, describeUrl } from "./errors";

/** Where the engine connects: a URL, or a pool the caller created (and will end). */
export type PostgresConnectionOptions = { url: string } | { pool: pg.Pool };

/** A pool with its description, and whether the engine owns (ends) it. */
export interface Connection {
  pool: pg.Pool;
  /** `host:port/database`, for messages. */
  where: string;
  owned: boolean;
  /** Runs a query on the pool; driver errors become {@link IndexConnectionError}s. */
  query<Row extends pg.QueryResultRow>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<pg.QueryResult<Row>>;
  /**
   * Runs `task` in a transaction on one client (rolled back when it throws). With `relaxed`, the
   * commit does not wait for the server's disk flush (`synchronous_commit off`): a server crash
   * may lose the last such commits, never corrupt anything — for pushes, which are idempotent
   * and redo what was lost.
   */
  transaction<T>(task: (client: pg.PoolClient) => Promise<T>, relaxed?: boolean): Promise<T>;
  /** One client for a longer job (released by the caller). */
  connect(): Promise<pg.PoolClient>;
}

/** Builds the {@link Connection} for the options. Does not connect yet. */
export function openConnection(options: PostgresConnectionOptions): Connection {
  const owned = "url" in options;
  const pool =
    "url" in options
      ? new pg.Pool({
          connectionString: options.url,
          max: 4,
          connectionTimeoutMillis: 15_000,
          idleTimeoutMillis: 10_000,
        })
      : options.pool;
  const where =
    "url" in options
      ? describeUrl(options.url)
      : `${pool.options.host ?? "localhost"}:${pool.options.port ?? 5432}/${pool.options.database ?? ""}`;
  // An idle client whose server went away emits `error` on the pool; without a listener Node
  // would crash. The next query reports the problem in its own words.
  if (owned) pool.on("error", () => undefined);
  const listening = new WeakSet<pg.PoolClient>();
  const connect = async (): Promise<pg.PoolClient> => {
    try {
      const client = await pool.connect();
      if (!listening.has(client)) {
        listening.add(client);
        client.on("error", () => undefined);
      }
      return client;
    } catch (error) {
      throw describeDriverError(error, where);
    }
  };
  return {
    pool,
    where,
    owned,
    async query<Row extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = []) {
      try {
        return await pool.query<Row>(sql, params as unknown[]);
      } catch (error) {
        throw describeDriverError(error, where);
      }
    },
    async transaction<T>(task: (client: pg.PoolClient) => Promise<T>, relaxed = false): Promise<T> {
      const client = await connect();
      let broken = false;
      try {
        await client.query(relaxed ? "BEGIN; SET LOCAL synchronous_commit TO off" : "BEGIN");
        const result = await task(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true;
        }
        throw describeDriverError(error, where);
      } finally {
        client.release(broken);
      }
    },
    connect,
  };
}
