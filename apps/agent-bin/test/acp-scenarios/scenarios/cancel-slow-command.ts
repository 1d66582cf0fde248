import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** Cancel while `run_command` sleeps: the command is killed and the prompt answers `cancelled`. */
export const scenario = defineScenario({
  name: "cancel-during-slow-command",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "setMode", modeId: "auto" },
    { step: "prompt", text: "Run the slow build.", wait: false },
    { step: "waitFor", kind: "tool_call_update" },
    { step: "cancel" },
    { step: "waitFor", kind: "stop" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Run the slow build.")
    .toolCall("run_command", { command: "sleep 30" }, { callId: "call_sleep" })
    .toolResult("Error: the run was cancelled before this tool call finished.", { isError: true })
    .end()
    .build()
    .recording();
