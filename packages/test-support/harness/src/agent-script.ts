import { DEFAULT_SYSTEM_PROMPT, toolDefinitions } from "@tapedeck/agent";
import { standardTools } from "@tapedeck/host";
import { type ScriptedRecordingOptions, scriptedRecording } from "@tapedeck/llm-replay";
import { createMemoryQueryEngine } from "@tapedeck/session-query";

/**
 * A scripted conversation (`@tapedeck/llm-replay`) whose requests carry the agent's real system
 * prompt and the tools every run offers, so the replay server's request matching holds against
 * the real binary: `agentScript().user("hi").text("Hello!").end().build().recording()`.
 */
export function agentScript(options: Partial<ScriptedRecordingOptions> = {}) {
  return scriptedRecording({
    tools: toolDefinitions(standardTools(createMemoryQueryEngine(), "recording")),
    ...options,
  }).system(DEFAULT_SYSTEM_PROMPT);
}
