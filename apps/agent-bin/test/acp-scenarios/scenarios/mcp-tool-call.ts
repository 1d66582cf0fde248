import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** The editor's MCP server (a real process); the model calls its tools. */
export const exampleServer = {
  name: "example",
  command: "<NODE>",
  args: ["<MCP_EXAMPLE>"],
  env: [],
};

/**
 * A session with an MCP server from `session/new`: a read-only tool runs without asking, another
 * asks first; both show as ordinary tool calls, and the log records the server list.
 */
export const scenario = defineScenario({
  name: "mcp-tool-call",
  // The MCP tools change the tool list the model gets: the replay does not compare requests.
  match: "off",
  steps: [
    { step: "initialize" },
    { step: "newSession", mcpServers: [exampleServer] },
    { step: "prompt", text: "Echo hi, then add 2 and 3.", wait: false },
    { step: "waitFor", kind: "permission" },
    { step: "respondPermission", option: "allow_once" },
    { step: "waitFor", kind: "stop" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Echo hi, then add 2 and 3.")
    .toolCall("mcp__example__echo", { text: "hi" }, { callId: "call_echo" })
    .toolResult("echo: hi")
    .toolCall("mcp__example__add", { a: 2, b: 3 }, { callId: "call_add" })
    .toolResult("5")
    .text("echo: hi, and 2 + 3 = 5.")
    .end()
    .build()
    .recording();
