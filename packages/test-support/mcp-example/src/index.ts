/**
 * `@tapedeck/mcp-example`: where the example MCP server's script is, and how to start it. The
 * script is plain JavaScript (Node 20 runs it without a build), built on `@modelcontextprotocol/sdk`.
 */
import { fileURLToPath } from "node:url";

export { toolCaller, toolText } from "./tool-answers";

/** Absolute path of `example-server.mjs`. */
export const EXAMPLE_SERVER_PATH = fileURLToPath(new URL("./example-server.mjs", import.meta.url));

/** Tool names the example server offers. */
export const EXAMPLE_TOOLS = ["echo", "add", "crash", "sleep", "garbage", "fail"] as const;

/** `{command, args}` that starts the example server with this Node. */
export function exampleServerCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [EXAMPLE_SERVER_PATH] };
}
