import { defineScenario } from "@tapedeck/acp-snapshot";
import { INTERRUPTED_OUTPUT } from "@tapedeck/session";
import { agentScript } from "@tapedeck/test-harness";

/**
 * SIGKILL while a tool runs, a new agent process on the same home, `session/load` (the call shows
 * as failed with SESSION_RESUME_INTERRUPTED, on the wire and in the log), then a new prompt.
 */
export const scenario = defineScenario({
  name: "kill-mid-tool-restart-load",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "setMode", modeId: "auto" },
    { step: "prompt", text: "Run the long job.", wait: false },
    { step: "waitFor", kind: "tool_call_update" },
    { step: "kill" },
    { step: "restart" },
    { step: "initialize" },
    { step: "loadSession" },
    { step: "prompt", text: "What happened?" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Run the long job.")
    .toolCall("run_command", { command: "sleep 30" }, { callId: "call_long" })
    .toolResult(
      `${INTERRUPTED_OUTPUT} Its process group was still running after the crash and has been ended (SIGTERM).`,
      { isError: true },
    )
    .user("What happened?")
    .text("The job was interrupted when the agent stopped.")
    .end()
    .build()
    .recording();
