import type { ChildProcess } from "node:child_process";
import {
  type ReplayServer,
  type ReplayServerOptions,
  type ScriptedLog,
  startReplayServer,
} from "@tapedeck/llm-replay";
import { type TempWorkspace, tempWorkspace } from "@tapedeck/test-temp";
import { onTestFinished } from "vitest";
import type { BinaryLaunch } from "./binary";
import { type BinaryEnvOptions, binaryEnv } from "./model-env";
import { type CliResult, type RunCliOptions, runCli } from "./run-cli";
import { type HomeLogs, homeLogs } from "./session-logs";
import { type PermissionAnswer, type SpawnedAgent, spawnAcp } from "./spawn-acp";

/** What {@link cliContext} gives a test. */
export interface CliContext {
  workspace: TempWorkspace;
  /** The replay server of the scripted conversation, when one was given. */
  server: ReplayServer | undefined;
  /** The environment every process of this context runs with. */
  env: Record<string, string>;
  /**
   * Runs `tapedeck …args` in the workspace (or `options.cwd`) to its end; `options.terminal` runs
   * it under a pseudo-terminal answering each approval prompt.
   */
  cli(
    args: readonly string[],
    onStderr?: (stderr: string, child: ChildProcess) => void,
    options?: Partial<Pick<RunCliOptions, "cwd" | "terminal" | "timeoutMs" | "onStdout">>,
  ): Promise<CliResult>;
  /** Spawns `tapedeck acp` in the workspace; closed with the context. */
  acp(answer?: PermissionAnswer): SpawnedAgent;
  /** The home's logs, read through the store. */
  logs: HomeLogs;
}

/** Options of {@link cliContext}. */
export interface CliContextOptions {
  /** Replay matching (default: the server's default, strict). */
  match?: ReplayServerOptions["match"];
  /** Model, key and extra variables of the environment. */
  env?: Omit<BinaryEnvOptions, "baseUrl">;
  /** Which Node.js and binary every process runs (default: the tests' Node, `tapedeck.mjs`). */
  launch?: BinaryLaunch;
}

/** A scripted conversation, or one built from the context's workspace (paths in tool calls). */
export type ScriptedInput = ScriptedLog | ((workspace: TempWorkspace) => ScriptedLog);

/**
 * A temp home and workspace, a replay server for the scripted conversation (if any), and the built
 * binary run against it. Everything is removed when the current test finishes, so call it inside
 * a test.
 */
export function cliContext(
  scripted: ScriptedInput,
  options?: CliContextOptions,
): Promise<CliContext & { server: ReplayServer }>;
export function cliContext(scripted?: undefined, options?: CliContextOptions): Promise<CliContext>;
export async function cliContext(
  scripted?: ScriptedInput,
  options: CliContextOptions = {},
): Promise<CliContext> {
  const workspace = await tempWorkspace();
  const agents: SpawnedAgent[] = [];
  let server: ReplayServer | undefined;
  onTestFinished(async () => {
    for (const agent of agents) await agent.close();
    await server?.close();
    await workspace.cleanup();
  });
  const recording = typeof scripted === "function" ? scripted(workspace) : scripted;
  if (recording !== undefined) {
    server = await startReplayServer(
      recording.recording(),
      options.match === undefined ? {} : { match: options.match },
    );
  }
  const env = binaryEnv(workspace, {
    ...options.env,
    ...(server === undefined ? {} : { baseUrl: server.url }),
  });
  return {
    workspace,
    server,
    env,
    cli: (args, onStderr, cliOptions = {}) =>
      runCli(args, {
        ...options.launch,
        ...cliOptions,
        cwd: cliOptions.cwd ?? workspace.cwd,
        env,
        ...(onStderr === undefined ? {} : { onStderr }),
      }),
    acp(answer) {
      const agent = spawnAcp(env, workspace.cwd, answer, options.launch);
      agents.push(agent);
      return agent;
    },
    logs: homeLogs(workspace.home),
  };
}
