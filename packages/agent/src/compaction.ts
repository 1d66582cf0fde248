import type { SurfaceEntry, SurfaceItem } from "@tapedeck/session";

/** Instructions of the summary call. */
export const COMPACTION_INSTRUCTIONS = `Summarize the conversation so far for your own later use. Keep: the user's goals and constraints, decisions taken, files read or changed (with paths), commands run and their outcomes, open problems and next steps. Be concise and factual; write plain text, no preamble.`;

/** Rough token count of surface items (about 4 characters a token). */
export function estimateTokens(items: readonly SurfaceItem[]): number {
  let characters = 0;
  for (const item of items) {
    switch (item.type) {
      case "message":
        characters += item.content.length;
        break;
      case "function_call":
        characters += item.name.length + item.arguments.length;
        break;
      case "function_call_output":
        characters += item.output.length;
        break;
      case "compaction":
        characters += item.summary.length;
        break;
    }
    characters += 16;
  }
  return Math.ceil(characters / 4);
}

/**
 * The seqs a compaction should replace: every visible item before the last `keepLast` ones,
 * except system and developer messages (the instructions stay verbatim). The boundary moves back
 * so that a call and its output are never split. Returns `[]` when fewer than two items would be
 * replaced (nothing worth summarizing).
 */
export function selectCompaction(surface: readonly SurfaceEntry[], keepLast: number): number[] {
  let boundary = Math.max(0, surface.length - keepLast);
  // A call before the boundary whose output is kept (or still missing) pulls the boundary back.
  for (let changed = true; changed; ) {
    changed = false;
    const kept = new Set<string>();
    for (let index = boundary; index < surface.length; index += 1) {
      const item = surface[index]?.item;
      if (item?.type === "function_call_output") kept.add(item.callId);
    }
    const answered = new Set<string>();
    for (let index = 0; index < boundary; index += 1) {
      const item = surface[index]?.item;
      if (item?.type === "function_call_output") answered.add(item.callId);
    }
    for (let index = 0; index < boundary; index += 1) {
      const item = surface[index]?.item;
      if (item?.type === "function_call" && (kept.has(item.callId) || !answered.has(item.callId))) {
        boundary = index;
        changed = true;
        break;
      }
    }
  }
  const seqs: number[] = [];
  for (let index = 0; index < boundary; index += 1) {
    const entry = surface[index];
    if (entry === undefined) continue;
    if (
      entry.item.type === "message" &&
      (entry.item.role === "system" || entry.item.role === "developer")
    ) {
      continue;
    }
    seqs.push(entry.seq);
  }
  return seqs.length >= 2 ? seqs : [];
}
