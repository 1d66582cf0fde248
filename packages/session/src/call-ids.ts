import type { Session } from "./session";

/**
 * The `callId` a new `function_call` gets: the provider's own id when the session has not used it
 * yet (so ordinary logs keep the provider's ids), else the first free `<providerCallId>_<n>`
 * (n = 2, 3, …). Some model servers (a restarted server, several local ones) reuse ids across
 * responses; without this the next call would break invariant 7 (`DUPLICATE_CALL_ID`). The rule is
 * deterministic, so replaying a recording gives the same ids.
 *
 * @param taken ids given to earlier calls of the same response that are not in `session` yet.
 */
export function sessionCallId(
  session: Pick<Session, "callSeq">,
  providerCallId: string,
  taken: ReadonlySet<string> = new Set(),
): string {
  const free = (id: string) => session.callSeq(id) === undefined && !taken.has(id);
  if (free(providerCallId)) return providerCallId;
  for (let n = 2; ; n += 1) {
    const candidate = `${providerCallId}_${n}`;
    if (free(candidate)) return candidate;
  }
}
