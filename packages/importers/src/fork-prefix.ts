/**
 * The prefix a fork shares with its parent by content: a Codex rollout forked from another
 * re-records the parent's history with its own times (and gets run ids of its own when
 * converted), so its events never equal the parent's one for one although the conversation does.
 */
import type { SessionEvent } from "@tapedeck/session";
import type { TimedDraft } from "./types";

/** How many leading drafts equal the parent's events with `seq`, `ts` and `runId` aside. */
export function contentPrefix(
  parent: readonly SessionEvent[],
  drafts: readonly TimedDraft[],
): number {
  return leadingMatches(parent, drafts, (event, draft) => content(event) === content(draft));
}

/** How many leading events of `events` match the drafts at the same index. */
export function leadingMatches(
  events: readonly SessionEvent[],
  drafts: readonly TimedDraft[],
  same: (event: SessionEvent, draft: TimedDraft) => boolean,
): number {
  const length = Math.min(events.length, drafts.length);
  for (let index = 0; index < length; index += 1) {
    if (!same(events[index]!, drafts[index]!)) return index;
  }
  return length;
}

/** The drafts with the first `count` replaced by the parent's events (their times and run ids). */
export function withParentEvents(
  parent: readonly SessionEvent[],
  drafts: readonly TimedDraft[],
  count: number,
): TimedDraft[] {
  const inherited = parent.slice(0, count).map(({ seq: _seq, ...event }) => event as TimedDraft);
  return [...inherited, ...drafts.slice(count)];
}

/** True when the two say the same with `seq` and the ids a source may add later aside. */
export function sameButIds(event: object, draft: object): boolean {
  return canonical(withoutIds(event)) === canonical(withoutIds(draft));
}

function withoutIds(event: object): Record<string, unknown> {
  const { seq: _seq, runId: _runId, entryId: _entryId, ...rest } = event as Record<string, unknown>;
  return rest;
}

/** The event as canonical JSON without `seq`, `ts` and `runId`. */
function content(event: object): string {
  const { seq: _seq, ts: _ts, runId: _runId, ...rest } = event as Record<string, unknown>;
  return canonical(rest);
}

/** JSON with object keys sorted, `undefined` members dropped (as in the file). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== "object" || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(member).sort())
      sorted[name] = (member as Record<string, unknown>)[name];
    return sorted;
  });
}
