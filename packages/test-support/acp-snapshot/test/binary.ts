import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SYSTEM_PROMPT, toolDefinitions } from "@tapedeck/agent";
import { standardTools } from "@tapedeck/agent-bin";
import { scriptedRecording } from "@tapedeck/llm-replay";
import { createMemoryQueryEngine } from "@tapedeck/session-query";

/** The agent-bin package directory (through this package's workspace link). */
export const agentBinDir = realpathSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), "../node_modules/@tapedeck/agent-bin"),
);

/** `node <built tapedeck binary>`: what an editor spawns (plus the `acp` argument). */
export const tapedeckCommand = [process.execPath, path.join(agentBinDir, "dist/tapedeck.mjs")];

/** A scripted recording whose requests carry the agent's real system prompt and tools. */
export function agentScript() {
  return scriptedRecording({
    tools: toolDefinitions(standardTools(createMemoryQueryEngine(), "recording")),
  }).system(DEFAULT_SYSTEM_PROMPT);
}
