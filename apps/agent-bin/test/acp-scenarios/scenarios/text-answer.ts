import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** A new session and one text answer. */
export const scenario = defineScenario({
  name: "new-session-text-answer",
  steps: [{ step: "initialize" }, { step: "newSession" }, { step: "prompt", text: "Say hello." }],
});

export const recording = () =>
  agentScript().user("Say hello.").text("Hello! How can I help today?").end().build().recording();
