import { CliUsageError } from "../io";
import { oneLine, type SessionsContext } from "./context";

/** `sessions search TEXT [--all] [--json]`: full-text search over the scope's events. */
export async function search(context: SessionsContext): Promise<number> {
  const { host, io, values, scope, positionals, print } = context;
  const text = positionals.join(" ").trim();
  if (text === "") throw new CliUsageError("sessions search needs a text.");
  const engine = host.engine;
  const page = await engine.searchEvents(scope, {
    text,
    limit: 50,
    highlight: { open: "[", close: "]" },
  });
  if (values.json)
    print(
      page.items.map((hit) => ({
        sessionId: hit.sessionId,
        seq: hit.event.seq,
        type: hit.event.type,
        snippet: hit.snippet,
      })),
    );
  else if (page.items.length === 0)
    io.stderr.write(values.all ? "No matches.\n" : "No matches in this workspace (try --all).\n");
  else
    for (const hit of page.items)
      io.stdout.write(
        `${hit.sessionId} #${hit.event.seq} ${hit.event.type}: ${oneLine(hit.snippet, 120)}\n`,
      );
  return 0;
}
