import { parseArgs } from "node:util";
import { createHost, mcpSettingsFromEnv } from "@tapedeck/host";
import { defaultWorkspaceId } from "@tapedeck/session-store";
import type { ListedSession } from "../acp/acp-agent";
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
  await serveAcp({
    mcp: mcpSettingsFromEnv(io.env),
    store: host.store,
    config: host.config,
    providerFor: host.providerFor,
    toolsFor: (cwd) => host.toolsFor({ cwd, workspaceId: defaultWorkspaceId(cwd) }),
    listSessions: async (cwd) => {
      const sessions: ListedSession[] = [];
      let cursor: string | undefined;
      do {
        const page = await host.engine.listSessions(
          { all: true },
          { limit: 100, ...(cursor === undefined ? {} : { cursor }) },
        );
        for (const summary of page.items) {
          if (cwd !== undefined && summary.cwd !== cwd) continue;
          sessions.push({
            sessionId: summary.id,
            cwd: summary.cwd,
            updatedAt: summary.updatedAt,
            ...(summary.title === null ? {} : { title: summary.title }),
          });
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return sessions;
    },
  });
  return 0;
}
