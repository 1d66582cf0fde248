/**
 * The viewer over a team index: a session another machine pushed is listed, searched, shown,
 * traced and exported although this home has no log of it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createPostgresQueryEngine } from "@tapedeck/session-query/postgres";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createApp, createTeamIndex } from "../src/server/index";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function home(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tapedeck-web-team-"));
  mkdirSync(path.join(dir, "sessions"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("viewer with TAPEDECK_INDEX_URL", () => {
  it("lists, searches, shows, traces and exports a session logged on another machine", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const elsewhere = home();
    const sessionId = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";
    const log = eventLogBuilder({ sessionId, cwd: "/work/elsewhere" })
      .turn()
      .user("tune the 连接池 size")
      .assistant("Set it to 20.")
      .end();
    writeFileSync(path.join(elsewhere, "sessions", `${sessionId}.jsonl`), log.jsonl());
    const other = await createPostgresQueryEngine({ url: database.url });
    await other.push(createSessionStore({ home: elsewhere }), { host: "elsewhere" });
    await other.close();

    const store = createSessionStore({ home: home() });
    const index = await createTeamIndex(store, database.url);
    cleanups.push(() => index.close());
    const web = createApp({ store, index, agent: { model: "openai:gpt-4.1-mini", cwd: "/" } });
    cleanups.push(() => web.close());
    const get = async (url: string) => {
      const response = await web.app.request(url);
      expect(response.status, url).toBe(200);
      return response;
    };
    // A session logged here too: the workspaces count both machines' sessions.
    const local = eventLogBuilder({ cwd: "/work/here" }).turn().user("hello").end();
    writeFileSync(
      path.join(store.home, "sessions", `${local.header.sessionId}.jsonl`),
      local.jsonl(),
    );
    const workspaces = (await (await get("/api/workspaces")).json()) as {
      items: { id: string; sessions: number }[];
    };
    expect(workspaces.items).toEqual(
      [
        { id: log.header.workspaceId, sessions: 1 },
        { id: local.header.workspaceId, sessions: 1 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    const list = (await (await get("/api/sessions")).json()) as { items: { id: string }[] };
    expect(list.items.map((item) => item.id).sort()).toEqual(
      [sessionId, local.header.sessionId].sort(),
    );
    const hits = (await (await get("/api/events?q=连接")).json()) as {
      items: { sessionId: string }[];
    };
    expect(hits.items.map((hit) => hit.sessionId)).toEqual([sessionId]);
    const shown = (await (await get(`/api/sessions/${sessionId}`)).json()) as {
      header?: { sessionId: string };
    };
    expect(JSON.stringify(shown)).toContain("tune the 连接池 size");
    const trace = (await (await get(`/api/sessions/${sessionId}/events/2/trace`)).json()) as {
      event: { seq: number };
    };
    expect(trace.event.seq).toBe(2);
    const exported = await (await get(`/api/sessions/${sessionId}/export`)).text();
    expect(exported).toBe(
      `${[log.header, ...log.events].map((line) => JSON.stringify(line)).join("\n")}\n`,
    );
  });
});
