import path from "node:path";
import { sessionIdsOnDisk, shortIds } from "@tapedeck/host/query";
import { exportSession, type QueryScope, type SessionQueryEngine } from "@tapedeck/session-query";
import { type SessionStore, writeFileAtomically } from "@tapedeck/session-store";
import { CliUsageError } from "../io";
import type { SessionsContext } from "./context";

/** `sessions export ID [-o FILE] [--html]`: the validated log as JSONL, or one HTML page. */
export async function exportCommand(context: SessionsContext): Promise<number> {
  const { host, store, io, values, fullScope, needIndexedId, remote } = context;
  const sessionId = await needIndexedId();
  const engine = host.engine;
  const text =
    values.html === true
      ? await exportHtml(store, engine, fullScope, sessionId, remote(sessionId))
      : await exportSession(engine, fullScope, sessionId);
  if (values.output !== undefined) {
    // All or nothing: a full disk leaves neither a half export nor a temp file. Private (0600)
    // like the home's logs: an export holds the same code, command output and prompts.
    writeFileAtomically(path.resolve(io.cwd, values.output), text, 0o600);
    io.stderr.write(`Exported ${sessionId} to ${values.output}\n`);
  } else {
    io.stdout.write(text);
  }
  return 0;
}

/** `export --html`: the viewer's renderer, loaded only here (it brings React's server renderer). */
async function exportHtml(
  store: SessionStore,
  engine: SessionQueryEngine,
  scope: QueryScope,
  sessionId: string,
  remote: boolean,
): Promise<string> {
  if (remote) {
    throw new CliUsageError(
      `sessions export --html needs the log on this machine; ${sessionId} is only in the team index (export it as JSONL).`,
    );
  }
  const [{ renderSessionHtml }, session, lineage, onDisk] = await Promise.all([
    import("@tapedeck/html-export"),
    store.readSession(sessionId),
    engine.traceLineage(scope, sessionId).catch(() => null),
    sessionIdsOnDisk(store),
  ]);
  return renderSessionHtml({
    session,
    lineage,
    shortIds: Object.fromEntries(shortIds(onDisk)),
    // Image attachments are embedded (data URLs): the file stays self-contained.
    readBlob: (hash) => store.readBlob(hash),
  });
}
