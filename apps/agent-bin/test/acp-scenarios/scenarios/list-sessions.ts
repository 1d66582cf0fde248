import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** `session/list` after two sessions in this workspace. */
export const scenario = defineScenario({
  name: "list-sessions",
  steps: [
    { step: "initialize" },
    { step: "newSession", as: "first" },
    { step: "prompt", session: "first", text: "First question?" },
    { step: "newSession", as: "second" },
    { step: "prompt", session: "second", text: "Second question?" },
    { step: "listSessions" },
  ],
});

export const recording = () =>
  agentScript()
    .user("First question?")
    .text("First answer.")
    .user("Second question?")
    .text("Second answer.")
    .end()
    .build()
    .recording();
