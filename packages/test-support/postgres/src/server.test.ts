import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { createTestDatabase, findPostgresBin, PostgresNotInstalledError } from "./index";

describe("test PostgreSQL server", () => {
  it("serves a database the test role owns, with pg_trgm installable by that role", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
      const { rows } = await client.query<{ superuser: boolean; version: string }>(
        "SELECT rolsuper AS superuser, current_setting('server_version_num') AS version FROM pg_roles WHERE rolname = current_user",
      );
      expect(rows[0]?.superuser).toBe(false);
      expect(Number(rows[0]?.version)).toBeGreaterThanOrEqual(150000);
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it("fails naming the package to install when the binaries are missing", () => {
    expect(() => findPostgresBin({ TAPEDECK_PG_BIN: "/nonexistent/bin" })).toThrow(
      PostgresNotInstalledError,
    );
    expect(() => findPostgresBin({ TAPEDECK_PG_BIN: "/nonexistent/bin" })).toThrow(
      /install Debian's "postgresql" package/,
    );
  });
});
