/**
 * vitest `globalSetup`: one PostgreSQL server for the whole run, its URL handed to the tests as
 * `inject("postgresUrl")`, stopped when the run ends. Fails the run (never skips) when the
 * server binaries are missing.
 */
import type { TestProject } from "vitest/node";
import "./provided-context";
import { startPostgresServer } from "./server";

/** Starts the server and provides its URLs; returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  project.provide("postgresUrl", server.url);
  project.provide("postgresAdminUrl", server.adminUrl);
  return () => server.stop();
}
