import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** A write the person allows once: the permission request, the tool call's progress, the answer. */
export const scenario = defineScenario({
  name: "tool-call-permission-allowed",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "prompt", text: "Create notes.txt saying hi.", wait: false },
    { step: "waitFor", kind: "permission" },
    { step: "respondPermission", option: "allow_once" },
    { step: "waitFor", kind: "stop" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Create notes.txt saying hi.")
    .toolCall("write_file", { path: "notes.txt", content: "hi\n" }, { callId: "call_write" })
    .toolResult("Wrote 3 bytes to notes.txt.")
    .text("Created notes.txt.")
    .end()
    .build()
    .recording();
