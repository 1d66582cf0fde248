import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** A write the person rejects: the call fails with the rejection and the model answers. */
export const scenario = defineScenario({
  name: "tool-call-permission-rejected",
  files: { "notes.txt": "keep me\n" },
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "prompt", text: "Overwrite notes.txt with nothing.", wait: false },
    { step: "respondPermission", option: "reject_once" },
    { step: "waitFor", kind: "stop" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Overwrite notes.txt with nothing.")
    .toolCall("write_file", { path: "notes.txt", content: "" }, { callId: "call_write" })
    .toolResult("Error: The user rejected this write_file call.", { isError: true })
    .text("Understood, I left notes.txt alone.")
    .end()
    .build()
    .recording();
