import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Recording, type ReplayServer, startReplayServer } from "@tapedeck/llm-replay";
import {
  binaryEnv,
  homeLogs,
  type TempWorkspace,
  tapedeckCommand,
  tempWorkspace,
} from "@tapedeck/test-harness";
import type { Scenario } from "./scenario";
import { ScenarioRun } from "./scenario-run";
import { runStep } from "./scenario-steps";
import type { WireEntry } from "./wire-capture";

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /**
   * The agent command, without the `acp` argument; default: `node <tapedeck binary>` as
   * `@tapedeck/test-harness` resolves it (the binary `$TAPEDECK_BINARY` names).
   */
  command?: readonly string[];
  /** The model's responses (a recording built for this scenario); none = no model calls allowed. */
  recording?: Recording;
  /** Keep the temp home for inspection instead of removing it. */
  keepHome?: boolean;
  /**
   * Placeholders a scenario may write in its steps (`{"<NODE>": process.execPath}`): expanded
   * before sending, and put back when snapshotting, so snapshots hold no machine paths.
   */
  placeholders?: Record<string, string>;
}

/** Everything a scenario run observed. */
export interface ScenarioResult {
  scenario: string;
  /** Every message in both directions, in order, plus CLI calls. */
  wire: WireEntry[];
  /** Raw session logs at the end, by session id. */
  logs: Map<string, string>;
  /** stderr of each agent process, in spawn order. */
  stderr: string[];
  /** Exit status of each agent process (`SIGKILL` for a killed one). */
  exits: Array<number | string | null>;
  /** Protocol problems found: each one fails `expectScenarioSnapshot`. */
  violations: string[];
  /** Paths to normalise. */
  home: string;
  cwd: string;
  /** The placeholders of {@link RunScenarioOptions.placeholders}. */
  placeholders: Record<string, string>;
}

/**
 * Spawns the agent with a fresh `TAPEDECK_HOME` and `OPENAI_BASE_URL` at a replay server, drives
 * it through the scenario's steps with the real ACP SDK client, and captures the wire, stderr,
 * exit status and final logs. It throws only when a step cannot go on (a timeout, an unexpected
 * error); protocol problems are collected in `violations`.
 */
export async function runScenario(
  scenario: Scenario,
  options: RunScenarioOptions = {},
): Promise<ScenarioResult> {
  const workspace = await prepareWorkspace(scenario);
  const { home, cwd } = workspace;
  const server: ReplayServer | undefined = options.recording
    ? await startReplayServer(options.recording, { match: scenario.match })
    : undefined;
  const env = binaryEnv(workspace, {
    ...(server === undefined ? {} : { baseUrl: server.url }),
    extra: scenario.env,
  });
  const run = new ScenarioRun({
    scenario,
    agentCommand: options.command ?? tapedeckCommand(),
    cwd,
    env,
    placeholders: options.placeholders ?? {},
  });
  let logs = new Map<string, string>();
  try {
    await runSteps(run);
  } finally {
    await stopAgents(run);
    // Read through the store (its scan), never by listing the sessions folder.
    logs = await homeLogs(home).all();
    if (server !== undefined) await closeReplayServer(server, run.violations);
    if (!options.keepHome) await workspace.cleanup();
  }
  return {
    scenario: scenario.name,
    wire: run.wire,
    logs,
    stderr: run.stderr,
    exits: run.exits,
    violations: run.violations,
    home,
    cwd,
    placeholders: options.placeholders ?? {},
  };
}

/** A temp workspace holding the scenario's files, its home holding the scenario's seeded logs. */
async function prepareWorkspace(scenario: Scenario): Promise<TempWorkspace> {
  const workspace = await tempWorkspace(`acp-scenario-${scenario.name}-`);
  const { home, cwd } = workspace;
  for (const [file, content] of Object.entries(scenario.files)) {
    await mkdir(path.dirname(path.join(cwd, file)), { recursive: true });
    await writeFile(path.join(cwd, file), content);
  }
  // Seeded logs are moved into the scenario's workspace, as if they had been recorded there.
  for (const log of scenario.seedLogs) {
    const [header, ...rest] = (await readFile(log, "utf8")).split("\n");
    const parsed = JSON.parse(header!) as Record<string, unknown>;
    const rebased = { ...parsed, cwd, workspaceId: cwd };
    homeLogs(home).write([JSON.stringify(rebased), ...rest].join("\n"));
  }
  return workspace;
}

/** Spawns client 1's agent, runs every step, then reports prompts and permissions left open. */
async function runSteps(run: ScenarioRun): Promise<void> {
  run.spawnAgent(1);
  for (const step of run.scenario.steps) await runStep(run, step);
  for (const [key, pending] of run.prompts) {
    run.violations.push(`prompt ${key} was never awaited (add a waitFor stop step)`);
    await pending.catch(() => undefined);
  }
  for (const permission of run.permissions)
    run.violations.push(
      `the client never answered a permission request (client ${permission.client})`,
    );
}

/** Cancels the permission requests still open and lets every agent exit. */
async function stopAgents(run: ScenarioRun): Promise<void> {
  for (const permission of run.permissions.splice(0))
    permission.resolve({ outcome: { outcome: "cancelled" } });
  for (const agent of run.processes.values()) await run.finish(agent);
}

/** Records the requests the replay server refused or never got, then closes it. */
async function closeReplayServer(server: ReplayServer, violations: string[]): Promise<void> {
  for (const failure of server.failures())
    violations.push(`replay server refused a request: ${JSON.stringify(failure).slice(0, 400)}`);
  try {
    server.assertAllConsumed();
  } catch (error) {
    violations.push((error as Error).message);
  }
  await server.close();
}
