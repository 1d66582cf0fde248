/**
 * Diverging continuations (architecture/team-index.md, "Two machines continue one session"): when
 * this home's copy of a session holds, at some seq, another event than the index (another machine
 * continued the same session from the same point and pushed first), this home's events from that
 * seq on are stored as a fork of the stored session at the seq before. Nothing is dropped and
 * nothing stored is changed. The fork's id is derived from the session, this home and the seq, so
 * a push killed midway and run again makes the same fork, and this home's later pushes of the log
 * append to it (`tapedeck_push_state.diverged_at`).
 */
import { hash } from "node:crypto";
import type { SessionHeader } from "@tapedeck/session";
import type { LogJob, PushState } from "./push-types";

/** The id of the fork holding `source`'s continuation of `sessionId` from `seq` on. */
export function divergedSessionId(sessionId: string, source: string, seq: number): string {
  const digest = hash("sha256", `diverged\u0000${sessionId}\u0000${source}\u0000${seq}`, "buffer");
  const bytes = Buffer.from(digest.subarray(0, 16));
  // A UUID of version 8 (custom, RFC 9562): derived, not random and not time-ordered.
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The header of that fork: the log's own header, renamed, branching at `seq - 1`. */
function divergedHeader(local: SessionHeader, source: string, seq: number): SessionHeader {
  return {
    ...local,
    sessionId: divergedSessionId(local.sessionId, source, seq),
    parent: { sessionId: local.sessionId, seq: seq - 1 },
  };
}

/**
 * The job that pushes a log's events from `seq` on into its divergence fork. `state`: this home's
 * progress with `diverged_at` set (a later push), or where the differing event starts in the file
 * (the push that found the divergence).
 */
export function divergedJob(
  job: LogJob,
  localHeader: SessionHeader,
  source: string,
  state: PushState & { diverged_at: number },
): LogJob {
  const header = divergedHeader(localHeader, source, state.diverged_at);
  return { ...job, header, headerText: JSON.stringify(header), state };
}
