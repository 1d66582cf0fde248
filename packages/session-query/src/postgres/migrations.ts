/**
 * The team index schema as versioned SQL migrations, applied in order on open inside one
 * transaction under an advisory lock (several machines may open a fresh database at once). A
 * database whose schema is newer than this code knows is refused, never downgraded. The layout is
 * documented in architecture/team-index.md; a change is a new entry here, never an edit.
 */
import type { PoolClient } from "pg";
import { IndexSchemaError } from "./errors";

/** One migration: the version it brings the database to and its SQL. */
export interface Migration {
  version: number;
  sql: string;
}

/** Every migration, oldest first. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE tapedeck_sessions (
  session_id uuid PRIMARY KEY,
  workspace_id text NOT NULL,
  cwd text NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  parent_id uuid,
  status text NOT NULL,
  header text NOT NULL,
  aggregate jsonb NOT NULL,
  damage_code text,
  damage_message text,
  search tsvector,
  host text NOT NULL,
  source text NOT NULL,
  bytes bigint NOT NULL DEFAULT 0,
  pushed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tapedeck_sessions_by_updated ON tapedeck_sessions (updated_at, session_id);
CREATE INDEX tapedeck_sessions_by_created ON tapedeck_sessions (created_at, session_id);
CREATE INDEX tapedeck_sessions_by_parent ON tapedeck_sessions (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX tapedeck_sessions_by_workspace ON tapedeck_sessions (workspace_id);
CREATE INDEX tapedeck_sessions_search ON tapedeck_sessions USING gin (search);

CREATE TABLE tapedeck_events (
  session_id uuid NOT NULL REFERENCES tapedeck_sessions ON DELETE CASCADE,
  seq integer NOT NULL,
  ts_ms bigint NOT NULL,
  workspace_id text NOT NULL,
  type text NOT NULL,
  role text,
  tool text,
  call_id text,
  replaced_by integer,
  line text NOT NULL,
  body tsvector,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX tapedeck_events_by_time ON tapedeck_events (ts_ms, seq, session_id);
CREATE INDEX tapedeck_events_by_call ON tapedeck_events (call_id) WHERE call_id IS NOT NULL;
CREATE INDEX tapedeck_events_body ON tapedeck_events USING gin (body);

CREATE TABLE tapedeck_push_state (
  source text NOT NULL,
  session_id uuid NOT NULL REFERENCES tapedeck_sessions ON DELETE CASCADE,
  header text NOT NULL,
  file_offset bigint NOT NULL,
  file_line integer NOT NULL,
  file_size bigint NOT NULL,
  file_ino numeric NOT NULL,
  file_mtime double precision NOT NULL,
  last_seq integer NOT NULL,
  PRIMARY KEY (source, session_id)
);

CREATE TABLE tapedeck_push_cursor (
  source text PRIMARY KEY,
  cursor text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    // A home whose copy of a session diverged from the stored one (two machines continued it
    // from the same point) pushes its continuation as a fork: the seq where it diverged.
    version: 2,
    sql: "ALTER TABLE tapedeck_push_state ADD COLUMN diverged_at integer",
  },
  {
    // The invariant state after this home's last pushed event: appended events are checked
    // against every invariant, as a replay of the whole log would (issue #28).
    version: 3,
    sql: "ALTER TABLE tapedeck_push_state ADD COLUMN invariants text",
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = migrations[migrations.length - 1]!.version;

/** Advisory lock key held while migrating ("tapede" in ASCII, as a number). */
const migrationLock = 0x746170656465;

/**
 * Brings the database to {@link SCHEMA_VERSION}. @throws IndexSchemaError when it is newer.
 */
export async function migrate(client: PoolClient, where: string): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLock]);
    await client.query(`CREATE TABLE IF NOT EXISTS tapedeck_schema (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM tapedeck_schema",
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new IndexSchemaError(where, current, SCHEMA_VERSION);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO tapedeck_schema (version) VALUES ($1)", [migration.version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
