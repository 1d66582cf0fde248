import { sessionIdsOnDisk } from "@tapedeck/host/query";
import { EventLogCorruptError } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import type { SessionsContext } from "./context";

async function verifyOne(
  store: SessionStore,
  sessionId: string,
): Promise<{
  sessionId: string;
  ok: boolean;
  code?: string;
  line?: number;
  offset?: number;
  message?: string;
}> {
  try {
    await store.readSession(sessionId);
    return { sessionId, ok: true };
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    return {
      sessionId,
      ok: false,
      code: error.code,
      ...(error.line === undefined ? {} : { line: error.line }),
      ...(error.offset === undefined ? {} : { offset: error.offset }),
      message: error.detail,
    };
  }
}

/** `sessions verify (ID | --all) [--json]`: replay-validates logs; exit 1 on damage. */
export async function verify(context: SessionsContext): Promise<number> {
  const { store, io, values, needId, print } = context;
  const ids = values.all ? await sessionIdsOnDisk(store) : [await needId()];
  const results = [];
  for (const id of ids) results.push(await verifyOne(store, id));
  const damaged = results.filter((result) => !result.ok);
  if (values.json) print(results);
  else {
    for (const result of results) {
      io.stdout.write(
        result.ok
          ? `ok       ${result.sessionId}\n`
          : `DAMAGED  ${result.sessionId}  ${result.code} at line ${result.line ?? "?"}, byte ${result.offset ?? "?"}: ${result.message}\n`,
      );
    }
    io.stderr.write(`${results.length} checked, ${damaged.length} damaged\n`);
  }
  return damaged.length > 0 ? 1 : 0;
}
