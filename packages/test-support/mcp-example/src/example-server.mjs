#!/usr/bin/env node
/**
 * An MCP server on stdio for tests of Tapedeck's MCP client, written with the official SDK.
 *
 * - `echo {text}`: answers `echo: <text>` (read-only: runs without approval).
 * - `add {a, b}`: answers the sum (not read-only: asks under the `ask` policy).
 * - `crash {}`: writes to stderr and exits with code 3 in the middle of the call.
 * - `sleep {ms}`: answers after `ms` milliseconds.
 * - `garbage {}`: writes a line that is not JSON-RPC, then a response whose result is not a tool
 *   result, to stdout.
 * - `fail {}`: a tool result with `isError: true`.
 *
 * `EXAMPLE_MCP_EXIT_AT_START=1` makes it exit before answering `initialize`.
 * Every line it writes to stderr starts with `example-mcp:`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

if (process.env.EXAMPLE_MCP_EXIT_AT_START === "1") {
  process.stderr.write("example-mcp: told to fail at start\n");
  process.exit(2);
}

const server = new McpServer({ name: "example", version: "1.0.0" });
const text = (value) => ({ content: [{ type: "text", text: value }] });

server.registerTool(
  "echo",
  {
    description: "Repeats the text.",
    inputSchema: z.object({ text: z.string() }).strict(),
    annotations: { readOnlyHint: true },
  },
  ({ text: value }) => text(`echo: ${value}`),
);
server.registerTool(
  "add",
  {
    description: "Adds two numbers.",
    inputSchema: z.object({ a: z.number(), b: z.number() }).strict(),
  },
  ({ a, b }) => text(String(a + b)),
);
server.registerTool(
  "crash",
  { description: "Crashes the server.", inputSchema: z.object({}).strict() },
  () => {
    process.stderr.write("example-mcp: crashing on purpose\n");
    process.exit(3);
  },
);
server.registerTool(
  "sleep",
  {
    description: "Waits, then answers.",
    inputSchema: z.object({ ms: z.number().int().min(0) }).strict(),
    annotations: { readOnlyHint: true },
  },
  async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return text(`slept ${ms} ms`);
  },
);
server.registerTool(
  "garbage",
  { description: "Answers garbage.", inputSchema: z.object({}).strict() },
  (_args, extra) => {
    process.stdout.write("this is not json-rpc\n");
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: extra.requestId, result: { content: "not a list" } })}\n`,
    );
    return new Promise(() => undefined);
  },
);
server.registerTool("fail", { description: "Fails.", inputSchema: z.object({}).strict() }, () => ({
  ...text("the example tool failed"),
  isError: true,
}));

await server.connect(new StdioServerTransport());
process.stderr.write("example-mcp: ready\n");
