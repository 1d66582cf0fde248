import { defineScenario } from "@tapedeck/acp-snapshot";

/** Loading an id that does not exist answers "resource not found" and creates nothing. */
export const scenario = defineScenario({
  name: "unknown-session-id",
  steps: [
    { step: "initialize" },
    { step: "expectError", code: -32002 },
    { step: "loadSession", sessionId: "0193b6e2-7c1a-7d3e-9f00-00000000dead" },
    { step: "expectError", code: -32602 },
    { step: "loadSession", sessionId: "../../etc/passwd" },
  ],
});

export const recording = () => undefined;
