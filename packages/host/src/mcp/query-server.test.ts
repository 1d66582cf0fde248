import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { copyFixturesTo, fixtureCatalog } from "@tapedeck/fixtures";
import { toolCaller, toolText } from "@tapedeck/mcp-example";
import { uuidv7 } from "@tapedeck/session";
import type { QueryScope } from "@tapedeck/session-query";
import { testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHost, type Host } from "../create-host";
import { createQueryServer } from "./query-server";

const WORKSPACE = "/workspace/project";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(scope: QueryScope = { workspaceIds: [WORKSPACE] }) {
  const home = testTempDir("tapedeck-mcp-");
  copyFixturesTo(path.join(home, "sessions"), ["tool-calls", "simple-chat", "fork-child"]);
  const host: Host = createHost({ env: { TAPEDECK_HOME: home } });
  const server = createQueryServer({ engine: host.engine, scope });
  const client = new Client({ name: "test", version: "0.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  cleanups.push(async () => {
    await client.close();
    host.engine.close();
  });
  const call = toolCaller(client);
  return { client, host, call };
}

const text = toolText;

describe("the MCP query server", () => {
  it("lists six read-only tools whose input schemas refuse unknown keys", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "search_sessions",
      "search_events",
      "list_sessions",
      "read_session",
      "trace_event",
      "trace_lineage",
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.description?.length).toBeLessThan(240);
    }
    const read = tools.find((tool) => tool.name === "read_session");
    expect(read?.inputSchema.required).toEqual(["sessionId"]);
  });

  it("answers with compact text and the same facts as structuredContent, paged by cursor", async () => {
    const { call } = await connect();
    const first = await call("search_events", { text: "tests", limit: 1 });
    expect(first.isError).toBeFalsy();
    const data = first.structuredContent as { hits: { sessionId: string }[]; nextCursor: string };
    expect(data.hits).toHaveLength(1);
    expect(text(first)).toContain(`session ${data.hits[0]?.sessionId} seq`);
    expect(text(first)).toContain(`nextCursor: ${data.nextCursor}`);
    const second = await call("search_events", {
      text: "tests",
      limit: 1,
      cursor: data.nextCursor,
    });
    expect(second.structuredContent).not.toEqual(first.structuredContent);

    const toolCalls = fixtureCatalog["tool-calls"].sessionId;
    const read = await call("read_session", { sessionId: toolCalls, limit: 3 });
    expect(text(read)).toContain("#3 message/user: Do the tests pass?");
    expect(read.structuredContent).toMatchObject({ sessionId: toolCalls, nextFromSeq: 4 });
    const lineage = await call("trace_lineage", {
      sessionId: fixtureCatalog["fork-child"].sessionId,
    });
    expect(text(lineage)).toContain(
      `ancestors (nearest first):\n- ${fixtureCatalog["fork-parent"].sessionId}`,
    );
    const trace = await call("trace_event", { sessionId: toolCalls, seq: 3 });
    expect(text(trace)).toMatch(/^event #3 message · visible on the surface/);
    const sessions = await call("list_sessions", {});
    expect((sessions.structuredContent as { sessions: unknown[] }).sessions).toHaveLength(4);
  });

  it("answers a session outside its scope exactly like a missing one", async () => {
    const { call } = await connect({ workspaceIds: ["/somewhere/else"] });
    const hidden = fixtureCatalog["tool-calls"].sessionId;
    const missing = uuidv7();
    const readHidden = await call("read_session", { sessionId: hidden });
    const readMissing = await call("read_session", { sessionId: missing });
    expect(readHidden.isError).toBe(true);
    expect(text(readHidden)).toBe(text(readMissing).replace(missing, hidden));
    expect(text(await call("search_events", { text: "tests" }))).toBe("No matching events.");
  });

  it("gives bad arguments a tool error result and keeps answering", async () => {
    const { call } = await connect();
    const bad = [
      [{ text: 42 }, /^Error \[INVALID_QUERY\]: text: /],
      [
        { text: "tests", scope: { all: true } },
        /^Error \[INVALID_QUERY\]: \(arguments\): Unrecognized key/,
      ],
      [{ text: "x".repeat(50_000) }, /^Error \[INVALID_QUERY\]: text: Too big/],
      [{ text: "tests", limit: 0 }, /^Error \[INVALID_QUERY\]: limit: /],
      [{ types: ["bogus"] }, /^Error \[INVALID_QUERY\]: Invalid query: query\.types\.0/],
    ] as const;
    for (const [args, message] of bad) {
      const result = await call("search_events", args);
      expect(result.isError, JSON.stringify(args).slice(0, 80)).toBe(true);
      expect(text(result)).toMatch(message);
    }
    expect(text(await call("read_session", {}))).toMatch(/sessionId/);
    expect(text(await call("read_session", { sessionId: "../../etc/passwd" }))).toMatch(
      /^Error \[INVALID_QUERY\]/,
    );
    const after = await call("search_events", { text: "tests" });
    expect(after.isError).toBeFalsy();
    expect(text(after)).toContain(fixtureCatalog["tool-calls"].sessionId);
  });

  it("sees a session written after it started: the index is synced per call, through the change journal", async () => {
    const { call, host } = await connect();
    expect(text(await call("search_events", { text: "zeppelin" }))).toBe("No matching events.");
    // The first call scanned the home (the index had no cursor); later ones read the journal.
    const scan = vi.spyOn(host.store, "scan");
    const created = await host.store.create({ cwd: WORKSPACE, workspaceId: WORKSPACE });
    const runId = uuidv7();
    await host.store.append(created.sessionId, [
      { type: "turn/start", runId, policy: { approval: "ask" }, model: "openai:m", resumed: false },
      { type: "message", runId, role: "user", content: "where is the zeppelin" },
      { type: "turn/end", runId, status: "completed" },
    ]);
    const found = await call("search_events", { text: "zeppelin" });
    expect(text(found)).toContain(created.sessionId);
    expect(scan).not.toHaveBeenCalled();
  });
});
