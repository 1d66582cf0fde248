/**
 * A throwaway PostgreSQL server for tests: Debian's `postgresql` binaries, a temporary data
 * directory, a free loopback port, no Unix socket. Started once per vitest run (see
 * `global-setup.ts`) and stopped afterwards; nothing is left on disk.
 *
 * Found the hard way: `initdb` refuses to run as root, so under root the server runs as the
 * `postgres` OS user (`runuser`), and the data directory's parent must be traversable by it
 * (`mkdtemp` gives 0700); `unix_socket_directories=''` avoids needing `/var/run/postgresql`.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { processExists } from "@tapedeck/test-temp/process";

const run = promisify(execFile);

/** Role the tests connect as: owns its databases, may create them, is no superuser. */
export const TEST_ROLE = "tapedeck";
/** Its password (the server checks passwords on TCP, so wrong credentials can be tested). */
export const TEST_PASSWORD = "tapedeck-test";

/** A running server. */
export interface PostgresServer {
  /** `postgres://tapedeck:…@127.0.0.1:<port>/postgres`: the non-superuser test role. */
  url: string;
  /** The same server as the superuser `postgres`. */
  adminUrl: string;
  port: number;
  /** Stops the server (immediate shutdown) and deletes its data directory. */
  stop(): Promise<void>;
}

/** The binaries are not installed. The message names the package to install. */
export class PostgresNotInstalledError extends Error {
  constructor(searched: string) {
    super(
      `PostgreSQL server binaries (initdb, pg_ctl) were not found in ${searched}: install Debian's "postgresql" package (apt-get install postgresql) or set TAPEDECK_PG_BIN to their directory.`,
    );
    this.name = "PostgresNotInstalledError";
  }
}

/** The directory holding `initdb` and `pg_ctl`: `TAPEDECK_PG_BIN`, else the newest Debian one. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string {
  const has = (dir: string) =>
    fs.existsSync(join(dir, "initdb")) && fs.existsSync(join(dir, "pg_ctl"));
  if (env.TAPEDECK_PG_BIN !== undefined && env.TAPEDECK_PG_BIN !== "") {
    if (has(env.TAPEDECK_PG_BIN)) return env.TAPEDECK_PG_BIN;
    throw new PostgresNotInstalledError(env.TAPEDECK_PG_BIN);
  }
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const dir = join(root, version, "bin");
    if (has(dir)) return dir;
  }
  throw new PostgresNotInstalledError(`${root}/*/bin`);
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as `postgres` when we are root. */
async function runAs(asPostgres: boolean, file: string, args: string[]): Promise<void> {
  const [command, argv] = asPostgres
    ? ["runuser", ["-u", "postgres", "--", file, ...args]]
    : [file, args];
  try {
    await run(command, argv, { timeout: 60_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${file} ${args.join(" ")} failed: ${stderr || stdout || String(error)}`, {
      cause: error,
    });
  }
}

/** Directories of servers that died without their teardown are removed after this long. */
const staleAfterMs = 10 * 60_000;

/**
 * Removes the temp directories of earlier servers that were killed without their teardown (a
 * test run killed with its process group takes the server with it): no live postmaster and older
 * than {@link staleAfterMs}. Each holds ~40 MB.
 */
export function removeStaleServers(root = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of fs.readdirSync(root)) {
    if (!name.startsWith("tapedeck-pg-")) continue;
    const dir = join(root, name);
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs < staleAfterMs) continue;
      const pidFile = join(dir, "data", "postmaster.pid");
      const pid = fs.existsSync(pidFile)
        ? Number(fs.readFileSync(pidFile, "utf8").split("\n")[0])
        : Number.NaN;
      if (Number.isInteger(pid) && pid > 0 && processExists(pid)) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Another run is removing it, or it is not ours to read: leave it.
    }
  }
  return removed;
}

/**
 * Starts a fresh server. @throws PostgresNotInstalledError when the binaries are missing (never a
 * silent skip: the suite must fail and say what to install).
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  removeStaleServers();
  const asPostgres = process.getuid?.() === 0;
  const root = fs.mkdtempSync(join(tmpdir(), "tapedeck-pg-"));
  const dataDir = join(root, "data");
  const passwordFile = join(root, "password");
  fs.writeFileSync(passwordFile, "postgres\n");
  if (asPostgres) {
    // mkdtemp gives 0700 owned by root: the postgres user must be able to enter and write it.
    await run("chown", ["-R", "postgres:postgres", root]);
  }
  fs.chmodSync(root, 0o755);
  await runAs(asPostgres, join(bin, "initdb"), [
    "-D",
    dataDir,
    "-U",
    "postgres",
    `--pwfile=${passwordFile}`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const options = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      "-c unix_socket_directories=''",
      // A test server: durability buys nothing and costs the shared CPUs a lot.
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    try {
      await runAs(asPostgres, join(bin, "pg_ctl"), [
        "-D",
        dataDir,
        "-o",
        options,
        "-l",
        join(root, "server.log"),
        "-w",
        "-t",
        "60",
        "start",
      ]);
    } catch (error) {
      lastError = error;
      continue;
    }
    const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    const server: PostgresServer = {
      url: `postgres://${TEST_ROLE}:${TEST_PASSWORD}@127.0.0.1:${port}/postgres`,
      adminUrl,
      port,
      async stop() {
        try {
          await runAs(asPostgres, join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "stop"]);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      },
    };
    try {
      await createTestRole(adminUrl);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }
  fs.rmSync(root, { recursive: true, force: true });
  throw lastError;
}

async function createTestRole(adminUrl: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(
      `CREATE ROLE ${TEST_ROLE} LOGIN CREATEDB PASSWORD '${TEST_PASSWORD}' CONNECTION LIMIT -1`,
    );
  } finally {
    await client.end();
  }
}
