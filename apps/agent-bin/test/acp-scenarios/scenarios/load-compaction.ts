import { defineScenario } from "@tapedeck/acp-snapshot";
import { fixturePath, loadFixture } from "@tapedeck/fixtures";

const fixture = loadFixture("compaction-chain");

/** `session/load` of a recorded session with chained compactions: the replay shows them. */
export const scenario = defineScenario({
  name: "load-session-with-compaction",
  seedLogs: [fixturePath("compaction-chain")],
  steps: [
    { step: "initialize" },
    { step: "useSeeded", sessionId: fixture.header.sessionId, as: "main" },
    { step: "loadSession" },
  ],
});

export const recording = () => undefined;
