import { defineScenario } from "@tapedeck/acp-snapshot";
import { agentScript } from "@tapedeck/test-harness";

/** A session answered over ACP, forked with `tapedeck run --fork`, then the fork loaded over ACP. */
export const scenario = defineScenario({
  name: "fork-via-cli-then-load",
  steps: [
    { step: "initialize" },
    { step: "newSession" },
    { step: "prompt", text: "Name a colour." },
    { step: "cli", args: ["run", "--fork", "{main}", "--json", "Name another one."], as: "fork" },
    { step: "loadSession", session: "fork" },
  ],
});

export const recording = () =>
  agentScript()
    .user("Name a colour.")
    .text("Blue.")
    .user("Name another one.")
    .text("Green.")
    .end()
    .build()
    .recording();
