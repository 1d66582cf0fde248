/**
 * What goes wrong between a machine and the team index: each failure is one sentence, nothing is
 * half-written, the local logs are untouched, and pushing again finishes the job.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createServer, Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { createTestDatabase, freePort, TEST_PASSWORD } from "@tapedeck/postgres-server";
import { createSessionStore } from "@tapedeck/session-store";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { IndexConnectionError, IndexSchemaError } from "./errors";
import { SCHEMA_VERSION } from "./migrations";
import { createPostgresQueryEngine } from "./postgres-engine";
import { digestLogs, indexContents, makeHome } from "./push-test-helpers";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<string> {
  const created = await createTestDatabase(inject("postgresUrl"));
  cleanups.push(() => created.drop());
  return created.url;
}

async function home(options: Parameters<typeof makeHome>[0]) {
  const made = await makeHome(options);
  cleanups.push(() => fs.rmSync(made.home, { recursive: true, force: true }));
  return made;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

/** One sentence: no line break, ends with a period, no password. */
function expectSentence(error: Error): void {
  expect(error.message).not.toMatch(/\n/);
  expect(error.message).toMatch(/\.$/);
  expect(error.message).not.toContain(TEST_PASSWORD);
}

describe("team index failures", () => {
  it("says in one sentence that the server cannot be reached", async () => {
    const port = await freePort();
    const error = await failure(
      createPostgresQueryEngine({ url: `postgres://someone:secret@127.0.0.1:${port}/team` }),
    );
    expect(IndexConnectionError.isInstance(error)).toBe(true);
    expect((error as IndexConnectionError).reason).toBe("unreachable");
    expect(error.message).toContain(`127.0.0.1:${port}/team`);
    expect(error.message).not.toContain("secret");
    expectSentence(error);
  });

  it("says in one sentence that the credentials were refused", async () => {
    const url = new URL(await database());
    url.password = "wrong-password";
    const error = await failure(createPostgresQueryEngine({ url: url.toString() }));
    expect(IndexConnectionError.isInstance(error)).toBe(true);
    expect((error as IndexConnectionError).reason).toBe("credentials");
    expect(error.message).not.toContain("wrong-password");
    expectSentence(error);
  });

  it("refuses a database of a newer schema version and changes nothing in it", async () => {
    const url = await database();
    await (await createPostgresQueryEngine({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query("INSERT INTO tapedeck_schema (version) VALUES ($1)", [SCHEMA_VERSION + 1]);
    const tables = async () =>
      (
        await client.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
        )
      ).rows.map((row) => row.name);
    const before = await tables();
    const error = await failure(createPostgresQueryEngine({ url }));
    expect(IndexSchemaError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expectSentence(error);
    expect(await tables()).toEqual(before);
  });

  it("rolls back a push whose connection drops midway; pushing again stores each event once", async () => {
    const url = await database();
    const { home: dir, events } = await home({ sessions: 6, turns: 40 });
    const before = await digestLogs(dir);
    // A proxy between engine and server that cuts every connection once enough has gone through.
    const target = new URL(url);
    let forwarded = 0;
    let cut = false;
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      if (cut) return client.destroy();
      const server = new Socket();
      sockets.add(client).add(server);
      server.connect(Number(target.port), target.hostname);
      client.on("data", (chunk: Buffer) => {
        forwarded += chunk.length;
        if (forwarded > 60_000 && !cut) {
          cut = true;
          for (const socket of sockets) socket.destroy();
          return;
        }
        server.write(chunk);
      });
      server.on("data", (chunk: Buffer) => client.write(chunk));
      client.on("error", () => server.destroy());
      server.on("error", () => client.destroy());
      client.on("close", () => server.destroy());
      server.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxied = new URL(url);
    proxied.port = String((proxy.address() as { port: number }).port);
    const engine = await createPostgresQueryEngine({ url: proxied.toString() });
    cleanups.push(() => engine.close().catch(() => undefined));
    const store = createSessionStore({ home: dir });
    const error = await failure(engine.push(store, { batchSize: 25 }));
    expect(IndexConnectionError.isInstance(error), String(error)).toBe(true);
    expect(["lost", "unreachable"]).toContain((error as IndexConnectionError).reason);
    expectSentence(error);
    expect(await digestLogs(dir)).toBe(before);
    const partial = await indexContents(url);
    expect(partial.consistent).toBe(true);
    expect(partial.events).toBeLessThan(events);

    const direct = await createPostgresQueryEngine({ url });
    cleanups.push(() => direct.close());
    await direct.push(store);
    const full = await indexContents(url);
    expect(full).toEqual({ sessions: 6, events, consistent: true });
    expect(await digestLogs(dir)).toBe(before);
  });

  it("resumes after kill -9 midway: each event exactly once", async () => {
    const url = await database();
    const { home: dir, events } = await home({ sessions: 30, turns: 60 });
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(new URL("./__fixtures__/push-child.ts", import.meta.url)),
        url,
        dir,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let exited = false;
    const closed = new Promise((resolve) => child.on("close", resolve));
    child.on("exit", () => {
      exited = true;
    });
    // Killed as soon as some sessions are committed: the rest is unpushed or mid-transaction.
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    cleanups.push(() => probe.end());
    for (;;) {
      const stored = await probe
        .query<{ n: string }>("SELECT count(*) AS n FROM tapedeck_events")
        .then((result) => Number(result.rows[0]?.n ?? 0))
        .catch(() => 0);
      if (stored > 0 || exited) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill("SIGKILL");
    await closed;
    const partial = await indexContents(url);
    expect(partial.consistent).toBe(true);
    expect(partial.events).toBeLessThan(events);
    const engine = await createPostgresQueryEngine({ url });
    cleanups.push(() => engine.close());
    await engine.push(createSessionStore({ home: dir }));
    expect(await indexContents(url)).toEqual({ sessions: 30, events, consistent: true });
    // And once more: nothing new, nothing twice.
    const again = await engine.push(createSessionStore({ home: dir }), { full: true });
    expect(again.eventsPushed).toBe(0);
    expect(await indexContents(url)).toEqual({ sessions: 30, events, consistent: true });
  }, 60_000);
});
