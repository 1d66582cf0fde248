import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";
import { exampleServer } from "./mcp-tool-call";

/**
 * A session that used an MCP server, loaded by a new agent process with no `mcpServers`: the MCP
 * call replays like any tool call, and the next prompt reconnects the server recorded in the log.
 */
export const scenario = defineScenario({
  name: "mcp-load-session",
  match: "off",
  steps: [
    { step: "initialize" },
    { step: "newSession", mcpServers: [exampleServer] },
    { step: "prompt", text: "Echo hi." },
    { step: "kill" },
    { step: "restart" },
    { step: "initialize" },
    { step: "loadSession" },
    { step: "prompt", text: "Echo again." },
  ],
});

export const recording = () =>
  agentScript()
    .user("Echo hi.")
    .toolCall("mcp__example__echo", { text: "hi" }, { callId: "call_echo" })
    .toolResult("echo: hi")
    .text("It said: echo: hi.")
    .user("Echo again.")
    .toolCall("mcp__example__echo", { text: "again" }, { callId: "call_echo_again" })
    .toolResult("echo: again")
    .text("It said: echo: again.")
    .end()
    .build()
    .recording();
