import path from "node:path";
import { fileURLToPath } from "node:url";
import { expectScenarioSnapshot, runScenario } from "@tapedeck/acp-snapshot";
import { EXAMPLE_SERVER_PATH } from "@tapedeck/mcp-example";
import { tapedeckCommand } from "@tapedeck/test-harness";
import { describe, it } from "vitest";
import * as busySession from "./scenarios/busy-session";
import * as cancelSlowCommand from "./scenarios/cancel-slow-command";
import * as forkCliLoad from "./scenarios/fork-cli-load";
import * as killRestartLoad from "./scenarios/kill-restart-load";
import * as listSessions from "./scenarios/list-sessions";
import * as loadCompaction from "./scenarios/load-compaction";
import * as mcpLoadSession from "./scenarios/mcp-load-session";
import * as mcpToolCall from "./scenarios/mcp-tool-call";
import * as permissionAllowed from "./scenarios/permission-allowed";
import * as permissionRejected from "./scenarios/permission-rejected";
import * as refusal from "./scenarios/refusal";
import * as textAnswer from "./scenarios/text-answer";
import * as unknownSession from "./scenarios/unknown-session";

const snapshots = path.join(path.dirname(fileURLToPath(import.meta.url)), "__snapshots__");

/** Every shipped scenario; each has `<name>.wire.jsonl` and `<name>.session-<n>.jsonl` snapshots. */
export const scenarios = [
  textAnswer,
  permissionAllowed,
  permissionRejected,
  cancelSlowCommand,
  killRestartLoad,
  loadCompaction,
  forkCliLoad,
  listSessions,
  unknownSession,
  busySession,
  refusal,
  mcpToolCall,
  mcpLoadSession,
];

describe("ACP scenarios against the real binary", () => {
  it.each(scenarios.map((entry) => [entry.scenario.name, entry] as const))(
    "%s",
    async (_name, entry) => {
      const recording = entry.recording();
      const result = await runScenario(entry.scenario, {
        command: tapedeckCommand(),
        placeholders: { "<NODE>": process.execPath, "<MCP_EXAMPLE>": EXAMPLE_SERVER_PATH },
        ...(recording ? { recording } : {}),
      });
      expectScenarioSnapshot(result, snapshots);
    },
  );
});
