/**
 * `tapedeck sessions search` on a fresh index, before the rest of the CLI is loaded (issue #12:
 * the command should cost about what `rg` costs). The binary builds this module as a CommonJS
 * bundle of its own (`dist/fresh-search.cjs`, see `tsup.config.ts`), tree-shaken statement by
 * statement, and its entry runs it through a V8 code cache (`../code-cache.ts`): it holds the
 * index's query path, the change journal's reader, `zod/mini`'s few checks and better-sqlite3's
 * JavaScript, and none of the store's writers, the log's schemas or zod's classic API. Whatever
 * it cannot answer (bad flags, no text, an index to sync, create or move aside, a read-only home,
 * a team index, a bad query) it leaves to `sessions-command.ts`, which answers or reports it.
 */
import { searchFreshIndex } from "@tapedeck/host/search";
import type { EventHit, Page } from "@tapedeck/session-query";
import type { Io } from "../io";
import { parseSessionsArgs, sessionsScope } from "./args";
import { printHits, searchQuery } from "./search-output";

/** Runs `sessions search ARGS` when the index is fresh; `undefined` when it did nothing. */
export async function searchIfFresh(
  args: string[],
  io: Pick<Io, "stdout" | "stderr" | "env" | "cwd">,
): Promise<number | undefined> {
  let answer: { page: Page<EventHit>; values: { all?: boolean; json?: boolean } } | undefined;
  try {
    const { values, positionals } = parseSessionsArgs(args);
    const query = searchQuery(positionals);
    if (query === null) return undefined;
    const scope = sessionsScope(values.all, io.cwd);
    const page = await searchFreshIndex({ env: io.env }, scope, query);
    if (page !== null) answer = { page, values };
  } catch {
    // The full command reports it (this bundle's error classes are copies of the CLI's).
    return undefined;
  }
  if (answer === undefined) return undefined;
  printHits(answer.page, answer.values, io);
  return 0;
}
