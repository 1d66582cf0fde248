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

/**
 * One turn whose model writes `out.txt` (content `x`) with `write_file`, a tool that needs
 * approval, then answers `Written.`: for a run that approves it (`--approve`) or refuses it.
 */
export function writeFileScript() {
  return agentScript()
    .user("write it")
    .toolCall("write_file", { path: "out.txt", content: "x" })
    .toolResult("Wrote 1 bytes to out.txt.")
    .text("Written.")
    .end()
    .build();
}
