import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** A second agent process prompting a session while the first one's turn runs gets a busy error. */
export const scenario = defineScenario({
  name: "second-client-busy-session",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "setMode", modeId: "auto" },
    { step: "prompt", text: "Run the long job.", wait: false },
    { step: "waitFor", kind: "tool_call_update" },
    { step: "secondClient" },
    { step: "initialize", client: 2 },
    { step: "loadSession", client: 2 },
    { step: "expectError", code: -32603, client: 2 },
    { step: "prompt", text: "Me too?", client: 2 },
    { step: "cancel" },
    { step: "waitFor", kind: "stop" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Run the long job.")
    .toolCall("run_command", { command: "sleep 30" }, { callId: "call_long" })
    .toolResult("Error: the run was cancelled before this tool call finished.", { isError: true })
    .end()
    .build()
    .recording();
