/** What `tapedeck sessions search` asks and prints, on both of its paths (see `fresh-search.ts`). */
import type { EventHit, EventSearchQuery, Page } from "@tapedeck/session-query";
import type { Io } from "../io";
import { oneLine } from "./context";

/** The query of `sessions search WORDS…`: 50 newest hits, matches in `[…]`; `null` without text. */
export function searchQuery(positionals: string[]): EventSearchQuery | null {
  const text = positionals.join(" ").trim();
  return text === "" ? null : { text, limit: 50, highlight: { open: "[", close: "]" } };
}

/** Prints a page of hits: one line each, or JSON with `--json`. */
export function printHits(
  page: Page<EventHit>,
  values: { all?: boolean; json?: boolean },
  io: Pick<Io, "stdout" | "stderr">,
): void {
  if (values.json)
    io.stdout.write(
      `${JSON.stringify(
        page.items.map((hit) => ({
          sessionId: hit.sessionId,
          seq: hit.event.seq,
          type: hit.event.type,
          snippet: hit.snippet,
        })),
        null,
        2,
      )}\n`,
    );
  else if (page.items.length === 0)
    io.stderr.write(values.all ? "No matches.\n" : "No matches in this workspace (try --all).\n");
  // One write: 50 lines through 50 writes cost 50 system calls.
  else
    io.stdout.write(
      page.items
        .map(
          (hit) =>
            `${hit.sessionId} #${hit.event.seq} ${oneLine(hit.event.type, 40)}: ${oneLine(hit.snippet, 120)}\n`,
        )
        .join(""),
    );
}
