import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import {
  createTestDatabase,
  findPostgresBin,
  PostgresNotInstalledError,
  removeStaleServers,
} from "./index";

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

  it("removes the directories of dead servers, not of live or recent ones", () => {
    const root = fs.mkdtempSync(join(tmpdir(), "tapedeck-stale-test-"));
    try {
      const old = new Date(Date.now() - 3_600_000);
      const make = (name: string, pid: number | null, time: Date) => {
        const dir = join(root, name);
        fs.mkdirSync(join(dir, "data"), { recursive: true });
        if (pid !== null) fs.writeFileSync(join(dir, "data", "postmaster.pid"), `${pid}\n`);
        fs.utimesSync(dir, time, time);
        return dir;
      };
      const dead = make("tapedeck-pg-dead", 2 ** 22 + 12345, old);
      const live = make("tapedeck-pg-live", process.pid, old);
      const fresh = make("tapedeck-pg-fresh", null, new Date());
      expect(removeStaleServers(root)).toEqual([dead]);
      expect(fs.existsSync(live)).toBe(true);
      expect(fs.existsSync(fresh)).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
