import { parseArgs } from "node:util";
import { createHost, mcpSettingsFromEnv } from "@tapedeck/host";
import { serveAcp } from "../acp/serve";
import type { Io } from "./io";

/** `tapedeck acp [--model M]`: serves the Agent Client Protocol on stdio. Returns the exit code. */
export async function acpCommand(rest: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: { model: { type: "string" } },
  });
  const host = createHost({
    env: io.env,
    ...(values.model === undefined ? {} : { model: values.model }),
  });
  await serveAcp({ host, mcp: mcpSettingsFromEnv(io.env) });
  return 0;
}
