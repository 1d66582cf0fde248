/**
 * Where a home's search index is and whether a team index replaces it: asked by the reading host
 * and by the fresh-index search alike, without loading either.
 */
import path from "node:path";

/** Path of the search index in a Tapedeck home. */
export function indexPath(home: string): string {
  return path.join(home, "index.sqlite");
}

/**
 * The team index (`postgres://…`) to query instead of the home's SQLite index: `indexUrl` when
 * given, else `TAPEDECK_INDEX_URL` of `env` (blank counts as unset); `undefined` for none.
 */
export function teamIndexUrl(
  env: Record<string, string | undefined>,
  indexUrl?: string,
): string | undefined {
  return indexUrl ?? (env.TAPEDECK_INDEX_URL?.trim() || undefined);
}
