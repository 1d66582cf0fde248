/**
 * Whether a growing Claude Code tree is still one session, decided entry by entry in file order
 * (what `claude-code-resume.ts` needs to convert only appended entries). `appendOnlyTreeSessions`
 * starts a second session exactly when an entry has two children whose subtrees each hold an entry
 * opening a branch (a typed prompt): one session means every such entry lies on one root-to-leaf
 * path, so each new one must hang below the last one. The results of parallel tool calls hang
 * from their own calls, beside the path; they open nothing, so they stay in the session, which
 * then holds every entry in file order, as a chain does.
 */

/** Where the entries read so far sit, as plain data. */
export interface TurnPlacement {
  /** True once an entry opened a branch (a prompt was typed). */
  prompted: boolean;
  /**
   * The subtree of the last entry that opened a branch (it included); empty before one (any
   * entry can then be the parent of the first).
   */
  turn: Set<string>;
}

/** The placement before any entry. */
export function emptyPlacement(): TurnPlacement {
  return { prompted: false, turn: new Set() };
}

/**
 * Places one more entry (`parentId` as the tree reads it); false when the tree is no longer one
 * session: the entry opens a branch and does not hang below the last one that did.
 */
export function placeEntry(
  placement: TurnPlacement,
  id: string,
  parentId: string | undefined,
  opens: boolean,
): boolean {
  const below = !placement.prompted || (parentId !== undefined && placement.turn.has(parentId));
  if (opens) {
    if (!below) return false;
    placement.prompted = true;
    placement.turn = new Set([id]);
  } else if (placement.prompted && below) placement.turn.add(id);
  return true;
}
