import { CliUsageError } from "../io";
import type { SessionsContext } from "./context";
import { printHits, searchQuery } from "./search-output";

/**
 * `sessions search TEXT [--all] [--json]`: full-text search over the scope's events, through the
 * reading host (which syncs the index first). A fresh index was tried before (`fresh-search.ts`).
 */
export async function search(context: SessionsContext): Promise<number> {
  const { host, io, values, scope, positionals } = context;
  const query = searchQuery(positionals);
  if (query === null) throw new CliUsageError("sessions search needs a text.");
  printHits(await host.engine.searchEvents(scope, query), values, io);
  return 0;
}
