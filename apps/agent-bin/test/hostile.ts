import { type ScriptedResponse, startScriptedServer } from "@tapedeck/llm-replay";
import {
  binaryEnv,
  type CliResult,
  type RunCliOptions,
  runCli,
  tempWorkspace,
} from "@tapedeck/test-harness";
import { onTestFinished } from "vitest";

/** Options of one CLI run against the hostile model. */
export interface HostileRunOptions
  extends Partial<Pick<RunCliOptions, "terminal" | "onStderr" | "timeoutMs" | "cwd">> {
  /** Extra environment (e.g. secrets the test looks for). */
  env?: Record<string, string>;
}

/**
 * A temporary home and workspace and a scripted model server that emits the given responses:
 * the attacker of the security tests. `cli()` runs the real binary against it (killed after 20 s).
 * Both are removed when the current test finishes (after its `afterEach` hooks), so call it inside
 * a test.
 */
export async function hostileModel(responses: readonly ScriptedResponse[]) {
  const workspace = await tempWorkspace();
  const server = await startScriptedServer(responses);
  onTestFinished(async () => {
    await server.close();
    await workspace.cleanup();
  });
  const baseEnv = binaryEnv(workspace, {
    baseUrl: server.url,
    model: "openai-chat:scripted",
    apiKey: "sk-hostile-test-key-0123456789",
  });
  const cli = (args: string[], options: HostileRunOptions = {}): Promise<CliResult> =>
    runCli(args, {
      ...options,
      cwd: options.cwd ?? workspace.cwd,
      env: { ...baseEnv, ...options.env },
      timeoutMs: options.timeoutMs ?? 20_000,
    });
  return {
    workspace,
    server,
    env: baseEnv,
    cli,
  };
}
