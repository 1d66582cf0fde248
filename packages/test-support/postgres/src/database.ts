/** Throwaway databases on a test server: one per test, so tests never see each other's rows. */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database created for one test. */
export interface TestDatabase {
  /** Connection URL of the new database (same role and server as the URL it was made from). */
  url: string;
  name: string;
  /** Drops the database (ending any connection still open to it). */
  drop(): Promise<void>;
}

/** The URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Creates an empty database owned by the URL's role. */
export async function createTestDatabase(url: string, prefix = "test"): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // FILE_COPY: copying template1's few files beats WAL-logging every block for tiny databases.
    await admin.query(`CREATE DATABASE ${name} STRATEGY = FILE_COPY`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(url, name),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
