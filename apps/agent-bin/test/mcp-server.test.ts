import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startReplayServer } from "@tapedeck/llm-replay";
import { toolCaller, toolText } from "@tapedeck/mcp-example";
import {
  agentScript,
  binaryEnv,
  runCli,
  type TempWorkspace,
  tapedeckBinary,
  tempWorkspace,
  withRunTmpdir,
} from "@tapedeck/test-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBuildOutputLog } from "./build-output-log";

/** A home made by real runs: two in the workspace, one in another directory. */
let workspace: TempWorkspace;
let env: Record<string, string>;
let otherDir: string;
const sessions: string[] = [];

/** One real `tapedeck run` answered by a replayed model; returns the session id. */
async function run(cwd: string, prompt: string, answer: string): Promise<string> {
  const recording = agentScript().user(prompt).text(answer).end().build();
  const server = await startReplayServer(recording.recording());
  try {
    const { code, stderr } = await runCli(["run", prompt], {
      cwd,
      env: { ...env, OPENAI_BASE_URL: server.url },
    });
    const id = /session (\S+) · completed/.exec(stderr)?.[1];
    if (code === 0 && id !== undefined) return id;
    throw new Error(`tapedeck run exited ${code}: ${stderr}`);
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  workspace = await tempWorkspace();
  otherDir = path.join(workspace.root, "elsewhere");
  await mkdir(otherDir);
  env = binaryEnv(workspace);
  sessions.push(
    await run(workspace.cwd, "where is the zeppelin config", "In config/zeppelin.toml."),
  );
  sessions.push(await run(workspace.cwd, "rename the zeppelin module", "Renamed it to airship."));
  sessions.push(await run(otherDir, "feed the walrus", "The walrus is fed."));
}, 60_000);
afterAll(() => workspace.cleanup());

async function connect(args: string[] = [], where = { cwd: workspace.cwd, env }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [tapedeckBinary(), "mcp", ...args],
    cwd: where.cwd,
    env: where.env,
    stderr: "pipe",
  });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: "tapedeck-test", version: "0.0.0" });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  const call = toolCaller(client);
  return { client, call, protocolErrors };
}

const text = toolText;

describe("tapedeck mcp", () => {
  it("serves the workspace's history to the SDK's client over stdio, nothing else on stdout", async () => {
    const { client, call, protocolErrors } = await connect();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(6);
    const found = await call("search_events", { text: "zeppelin", types: ["message"] });
    expect(text(found)).toContain(sessions[0]);
    expect(text(found)).toContain(sessions[1]);
    const hits = (found.structuredContent as { hits: { sessionId: string; seq: number }[] }).hits;
    expect(hits.map((hit) => hit.sessionId)).toContain(sessions[1]);
    const read = await call("read_session", { sessionId: sessions[0] });
    expect(text(read)).toContain("message/assistant: In config/zeppelin.toml.");
    const listed = await call("list_sessions", { limit: 1 });
    const cursor = (listed.structuredContent as { nextCursor: string }).nextCursor;
    const next = await call("list_sessions", { limit: 1, cursor });
    expect(text(listed)).toContain(sessions[1]);
    expect(text(next)).toContain(sessions[0]);

    // The other directory's session is outside the scope: exactly like a missing one.
    expect(text(await call("search_events", { text: "walrus" }))).toBe("No matching events.");
    const hidden = await call("read_session", { sessionId: sessions[2] });
    expect(hidden).toMatchObject({ isError: true });
    expect(text(hidden)).toBe(`Error [SESSION_NOT_FOUND]: Session ${sessions[2]} was not found.`);

    for (const args of [
      { text: 7 },
      { text: "a", everywhere: true },
      { text: "q".repeat(50_000) },
    ]) {
      const result = await call("search_events", args);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Error \[INVALID_QUERY\]/);
    }
    expect(text(await call("search_sessions", { text: "zeppelin" }))).toContain(sessions[0]);
    expect(protocolErrors).toEqual([]);
    await client.close();
  });

  it("a compacted session's output, stored in a blob, is searched past its preview and read", async () => {
    const own = await tempWorkspace();
    try {
      const ownEnv = binaryEnv(own);
      const id = "0193b6e2-7c1a-7d3e-9f00-0000000000f6";
      writeBuildOutputLog(own.home, id, own.cwd);
      const compacted = await runCli(["storage", "compact", "--older-than", "0s"], {
        cwd: own.cwd,
        env: ownEnv,
      });
      expect(compacted.code, compacted.stderr).toBe(0);
      expect(existsSync(path.join(own.home, "sessions", `${id}.jsonl.zst`))).toBe(true);
      const { client, call, protocolErrors } = await connect([], { cwd: own.cwd, env: ownEnv });
      // The word is 150 kB in, far past the 2,000-character preview the log line keeps.
      const found = text(await call("search_events", { text: "zanzibarite" }));
      expect(found).toContain(id);
      expect(found).toContain("zanzibarite");
      // read_session clips each event's text (400 characters a line): the output's, not a reference.
      const read = text(await call("read_session", { sessionId: id }));
      expect(read).toContain("#4 function_call_output: cc -O2 -c src/module.c");
      expect(read).not.toContain("outputBlob");
      expect(protocolErrors).toEqual([]);
      await client.close();
    } finally {
      await own.cleanup();
    }
  });

  it("with --all sees every workspace", async () => {
    const { client, call } = await connect(["--all"]);
    expect(text(await call("search_events", { text: "walrus" }))).toContain(sessions[2]);
    await client.close();
  });

  it("answers the MCP Inspector's CLI (a third-party client)", async () => {
    const require = createRequire(import.meta.url);
    // The inspector reads its own package.json relative to the current directory: run it there.
    const inspectorBuild = path.dirname(require.resolve("@modelcontextprotocol/inspector-cli"));
    const inspect = (method: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            "cli.js",
            "--cli",
            "-e",
            `TAPEDECK_HOME=${workspace.home}`,
            process.execPath,
            tapedeckBinary(),
            "mcp",
            "--all",
            "--method",
            ...method,
          ],
          {
            cwd: inspectorBuild,
            env: withRunTmpdir({ PATH: env.PATH ?? "", HOME: workspace.root }),
            stdio: "pipe",
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("exit", (code) => resolve({ code, stdout, stderr }));
      });
    const listed = await inspect(["tools/list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map(
      (tool) => tool.name,
    );
    expect(names).toEqual([
      "search_sessions",
      "search_events",
      "list_sessions",
      "read_session",
      "trace_event",
      "trace_lineage",
    ]);
    const called = await inspect([
      "tools/call",
      "--tool-name",
      "search_events",
      "--tool-arg",
      "text=walrus",
    ]);
    expect(called.code, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as CallToolResult;
    expect(text(result)).toContain(sessions[2]);
    const bad = await inspect(["tools/call", "--tool-name", "read_session", "--tool-arg", "seq=3"]);
    expect(bad.code, bad.stderr).toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ isError: true });
  }, 90_000);
});
