import { parseArgs } from "node:util";
import { serveAcp } from "../acp/serve";
import type { Io } from "./io";

/** How long a workspace's checkpoint watcher outlives a prompt (10 minutes). */
const WATCHER_LINGER_MS = 10 * 60_000;

/**
 * `tapedeck acp [--model M]`: serves the Agent Client Protocol on stdio. Returns the exit code.
 *
 * @param onInitialized - called once, after the agent answered its first `initialize` (the
 *   binary writes `acp.cjs`'s code cache then, see `acp-bundle.ts`)
 */
export async function acpCommand(
  rest: string[],
  io: Pick<Io, "env">,
  onInitialized?: () => void,
): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: { model: { type: "string" } },
  });
  await serveAcp({
    // Built on the first request after `initialize` (see `agent-runtime.ts`).
    host: async () => {
      const { createHost, mcpSettingsFromEnv } = await import("@tapedeck/host");
      const host = createHost({
        env: io.env,
        ...(values.model === undefined ? {} : { model: values.model }),
        // A session's next prompt finds its workspace watched (checkpoints list what changed).
        keepCheckpointWatchersMs: WATCHER_LINGER_MS,
      });
      return { host, mcp: mcpSettingsFromEnv(io.env) };
    },
    ...(onInitialized === undefined ? {} : { onInitialized }),
  });
  return 0;
}

/**
 * The entry of `acp.cjs` (see `acp-bundle.ts`): {@link acpCommand}, its failures reported as
 * every command's are (`commandFailure`).
 */
export async function acpMain(
  rest: string[],
  io: Pick<Io, "env" | "stderr">,
  onInitialized: () => void,
): Promise<number> {
  try {
    return await acpCommand(rest, io, onInitialized);
  } catch (error) {
    return (await import("./command-failure")).commandFailure(error, io);
  }
}
