import { MAX_LIMIT, type SessionSummary, settleActiveSessions } from "@tapedeck/session-query";
import { oneLine, type SessionsContext } from "./context";

function summaryLine(summary: SessionSummary): string {
  const spawned =
    summary.spawnedBy === undefined
      ? ""
      : `  (sub-agent of ${summary.spawnedBy.sessionId} at #${summary.spawnedBy.seq})`;
  return `${summary.id}  ${summary.updatedAt.slice(0, 16).replace("T", " ")}  ${String(summary.turnCount).padStart(3)} ${summary.turnCount === 1 ? "turn " : "turns"}  ${summary.status.padEnd(11)}  ${oneLine(summary.title, 60)}${spawned}`;
}

/** `sessions list [--all] [--json]`: every session of the scope, newest first. */
export async function list(context: SessionsContext): Promise<number> {
  const { host, store, io, values, scope, print } = context;
  const engine = host.engine;
  const items: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.listSessions(scope, {
      limit: MAX_LIMIT,
      ...(cursor === undefined ? {} : { cursor }),
    });
    // A turn left open by a process that died is not running: show it as interrupted.
    items.push(
      ...(await settleActiveSessions(
        page.items,
        async (id) => (await store.lockOwner(id)) !== undefined,
      )),
    );
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (values.json) print(items);
  else if (items.length === 0)
    io.stderr.write(values.all ? "No sessions.\n" : "No sessions in this workspace (try --all).\n");
  // One write: thousands of small writes cost more than formatting them (`list --all`).
  else io.stdout.write(`${items.map(summaryLine).join("\n")}\n`);
  return 0;
}
