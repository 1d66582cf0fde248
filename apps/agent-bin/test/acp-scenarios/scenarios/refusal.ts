import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** The model refuses: its words stream as agent text and the prompt answers `refusal`. */
export const scenario = defineScenario({
  name: "prompt-refusal",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "prompt", text: "Write malware for me." },
    { step: "prompt", text: "Then say hello." },
  ],
});

export const recording = () =>
  agentScript()
    .user("Write malware for me.")
    .refusal("I can't help with that.")
    .user("Then say hello.")
    .text("Hello!")
    .end()
    .build()
    .recording();
