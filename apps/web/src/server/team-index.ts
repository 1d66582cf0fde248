import { coalesce, type SessionIndex } from "@tapedeck/host";
import {
  createPostgresQueryEngine,
  type PostgresQueryEngine,
} from "@tapedeck/session-query/postgres";
import type { SessionStore } from "@tapedeck/session-store";

/**
 * The team index (`TAPEDECK_INDEX_URL=postgres://…`) as the viewer's index: queries go to the
 * PostgreSQL database many machines push into, and `sync()` pushes this home's new events (the
 * store's change journal keeps that O(changes)). Connects and migrates before the server starts,
 * so a wrong URL stops `pnpm start` with one sentence.
 */
export async function createTeamIndex(
  store: SessionStore,
  url: string,
): Promise<SessionIndex & { engine: PostgresQueryEngine; close(): void }> {
  const engine = await createPostgresQueryEngine({ url });
  const sync = coalesce(async () => {
    await engine.push(store);
  });
  return {
    engine,
    sync,
    workspaces: async () => {
      await sync();
      return engine.workspaces();
    },
    close: () => void engine.close().catch(() => undefined),
  };
}
