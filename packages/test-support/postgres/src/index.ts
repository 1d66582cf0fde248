/**
 * `@tapedeck/postgres-server` (test support): a real PostgreSQL server for tests, started from
 * Debian's `postgresql` package in a temp directory, and throwaway databases on it. Use
 * `@tapedeck/postgres-server/global-setup` as a vitest `globalSetup`, then
 * `createTestDatabase(inject("postgresUrl"))` per test.
 */
import "./provided-context";

export { createTestDatabase, type TestDatabase, withDatabase } from "./database";
export {
  findPostgresBin,
  freePort,
  PostgresNotInstalledError,
  type PostgresServer,
  removeStaleServers,
  startPostgresServer,
  TEST_PASSWORD,
  TEST_ROLE,
} from "./server";
