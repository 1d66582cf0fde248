/**
 * `@tapedeck/session-query/postgres`: the PostgreSQL backend, the team index (`pg`, Node only).
 * Many machines push their logs into one database; every operation then works from the database
 * alone.
 */
export type { PostgresConnectionOptions } from "./connection";
export {
  IndexConnectionError,
  type IndexConnectionReason,
  IndexSchemaError,
} from "./errors";
export { type Migration, migrations, SCHEMA_VERSION } from "./migrations";
export {
  createPostgresQueryEngine,
  type PostgresQueryEngine,
  type PostgresQueryEngineOptions,
  type WorkspaceCount,
} from "./postgres-engine";
export type {
  DivergedSession,
  HostStats,
  PushOptions,
  PushProgress,
  PushReport,
  PushStore,
} from "./push-types";
