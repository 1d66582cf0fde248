import { type AnyAgentTool, localWorkspaceFs } from "@tapedeck/agent";
import { exampleServerCommand } from "@tapedeck/mcp-example";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnections } from "./mcp-client";
import type { McpServerConfig } from "./server-config";

const opened: McpConnections[] = [];
afterEach(async () => {
  for (const connections of opened.splice(0)) await connections.close();
});

function example(name = "example", env: Record<string, string> = {}): McpServerConfig {
  return { transport: "stdio", name, ...exampleServerCommand(), env };
}

async function connect(servers: McpServerConfig[], callTimeoutMs = 10_000) {
  const warnings: string[] = [];
  const connections = await connectMcpServers(servers, {
    cwd: process.cwd(),
    warn: (text) => warnings.push(text),
    callTimeoutMs,
  });
  opened.push(connections);
  const tool = (name: string) => {
    const found = connections.tools.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found;
  };
  return { connections, warnings, tool };
}

const context = {
  cwd: process.cwd(),
  fs: localWorkspaceFs,
  signal: new AbortController().signal,
  sessionId: "s",
};
const call = (tool: AnyAgentTool, args: unknown) => tool.execute(args, context);

// Each test starts real server processes (twice for a restart); on a loaded CI machine a start
// alone can take seconds, so the default 5 s per test is too tight.
describe("MCP client", { timeout: 30_000 }, () => {
  it("offers a real server's tools as mcp__<server>__<tool>, read-only ones as reads", async () => {
    const { connections, tool } = await connect([example()]);
    expect(connections.tools.map((candidate) => candidate.name)).toEqual([
      "mcp__example__echo",
      "mcp__example__add",
      "mcp__example__crash",
      "mcp__example__sleep",
      "mcp__example__garbage",
      "mcp__example__fail",
    ]);
    expect(tool("mcp__example__echo").access).toBe("read");
    expect(tool("mcp__example__add").access).toBe("execute");
    expect(tool("mcp__example__add").parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    expect(await call(tool("mcp__example__echo"), { text: "hi" })).toBe("echo: hi");
    expect(await call(tool("mcp__example__add"), { a: 2, b: 3 })).toBe("5");
    await expect(call(tool("mcp__example__fail"), {})).rejects.toThrow("the example tool failed");
    await expect(call(tool("mcp__example__add"), { a: "x" })).rejects.toThrow(
      /Input validation error|Invalid/,
    );
  });

  it("a server that dies mid-call gives that call an error and is started again for the next", async () => {
    const { tool } = await connect([example()]);
    await expect(call(tool("mcp__example__crash"), {})).rejects.toThrow(
      /MCP server "example" stopped during the call to crash .*It will be started again/s,
    );
    expect(await call(tool("mcp__example__echo"), { text: "again" })).toBe("echo: again");
  });

  it("a call that takes too long and an answer that is not a tool result are error outputs", async () => {
    const { tool } = await connect([example()], 500);
    await expect(call(tool("mcp__example__sleep"), { ms: 5_000 })).rejects.toThrow(
      'MCP server "example" did not answer sleep within 1 s.',
    );
    await expect(call(tool("mcp__example__garbage"), {})).rejects.toThrow(
      /MCP server "example" (gave an answer that is not a valid tool result|did not answer garbage)/,
    );
    expect(await call(tool("mcp__example__sleep"), { ms: 1 })).toBe("slept 1 ms");
  });

  it("a server that does not start offers no tools and is reported; the others still work", async () => {
    const missing: McpServerConfig = {
      transport: "stdio",
      name: "missing",
      command: "/nonexistent/mcp-server",
      args: [],
      env: {},
    };
    const { connections, warnings, tool } = await connect([
      missing,
      example("dies", { EXAMPLE_MCP_EXIT_AT_START: "1" }),
      example(),
    ]);
    expect(connections.failures.map((failure) => failure.server)).toEqual(["missing", "dies"]);
    expect(connections.failures[1]?.message).toContain("told to fail at start");
    expect(warnings.join("")).toContain('MCP server "missing" did not start');
    expect(
      connections.tools.every((candidate) => candidate.name.startsWith("mcp__example__")),
    ).toBe(true);
    expect(await call(tool("mcp__example__echo"), { text: "ok" })).toBe("echo: ok");
  });
});
