import { sessionIdsOnDisk, shortIds } from "@tapedeck/host";
import type { Lineage } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { answer, queryInput } from "./route-input";
import { shortIdsQuerySchema } from "./schemas";

/** Short id of each session id a payload shows: `{ [id]: shortId }`. */
export type ShortIdMap = Record<string, string>;

/**
 * The host's short ids (unique in the home, accepted back by the CLI) of the given session ids;
 * an id the store does not hold (another machine's, in a team index) keeps its full form.
 */
export async function shortIdsOf(store: SessionStore, ids: Iterable<string>): Promise<ShortIdMap> {
  const short = shortIds(await sessionIdsOnDisk(store));
  return Object.fromEntries([...new Set(ids)].map((id) => [id, short.get(id) ?? id]));
}

/** Every session id a lineage shows: the session, its ancestors, its forks and sub-agent links. */
export function lineageIds(lineage: Lineage): string[] {
  const ids = [lineage.session.id, ...lineage.ancestors.map((ancestor) => ancestor.session.id)];
  const walk = (nodes: Lineage["descendants"]) => {
    for (const node of nodes) {
      ids.push(node.session.id);
      walk(node.children);
    }
  };
  walk(lineage.descendants);
  if (lineage.spawnedBy !== undefined) ids.push(lineage.spawnedBy.session.id);
  for (const link of lineage.subAgents ?? []) ids.push(link.session.id);
  return ids;
}

/** `GET /api/short-ids?ids=a,b`: short ids of sessions a page shows (the composer's run card). */
export function shortIdRoutes(store: SessionStore) {
  return new Hono().get("/api/short-ids", queryInput(shortIdsQuerySchema), async (c) => {
    const shortIds = await shortIdsOf(store, c.req.valid("query").ids);
    return answer(c, { shortIds });
  });
}
