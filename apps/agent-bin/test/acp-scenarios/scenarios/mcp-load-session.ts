import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";
import { exampleServer } from "./mcp-tool-call";

/**
 * A session that used an MCP server, loaded by a new agent process with no `mcpServers`: the MCP
 * call replays like any tool call, and the next prompt reconnects the server recorded in the log
 * (this home recorded it from the editor's list) once the person allows it (one permission
 * request showing the command).
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
    { step: "prompt", text: "Echo again.", wait: false },
    { step: "waitFor", kind: "permission" },
    { step: "respondPermission", option: "allow_once" },
    { step: "waitFor", kind: "stop" },
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
