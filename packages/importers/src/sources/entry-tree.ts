/**
 * Sources whose entries form a tree (pi's `id`/`parentId`, Claude Code's `uuid`/`parentUuid`):
 * which entries make up the main session and which make up each branch, each branch imported as
 * its own session that forks another by reference where they part ({@link appendOnlyTreeSessions}):
 * the first child at every entry, so that a re-import after a branch switch (pi's `/tree`, a
 * rewind in Claude Code) finds the sessions it wrote before.
 */
import type { SourceKey } from "../types";
import type { SourceEntry } from "./common";

/** One entry placed in the tree. */
export interface TreeNode<T> {
  id: string;
  /** `undefined` for a root. */
  parentId: string | undefined;
  /** Position among the entries, in file order. */
  index: number;
  /** 1-based line of the entry in its file. */
  line: number;
  entry: T;
}

/** How a source names an entry and its parent. */
export interface TreeShape<T> {
  /** The entry's id; `undefined` when it has none (the entry follows the one before). */
  id(entry: T): string | undefined;
  /**
   * The entry's parent id, given the ids seen so far and the id of the entry before it in the
   * file; `undefined` makes it a root.
   */
  parentId(entry: T, known: ReadonlySet<string>, previous: string | undefined): string | undefined;
}

/** Entries as tree nodes, in file order. An entry without an id is named after its line. */
export function buildTree<T>(
  entries: readonly SourceEntry<T>[],
  shape: TreeShape<T>,
): TreeNode<T>[] {
  const nodes: TreeNode<T>[] = [];
  const known = new Set<string>();
  let previous: string | undefined;
  for (const [index, { value, line }] of entries.entries()) {
    const own = shape.id(value);
    const id = own ?? `line-${line}`;
    const parentId = own === undefined ? previous : shape.parentId(value, known, previous);
    nodes.push({ id, parentId, index, line, entry: value });
    known.add(id);
    previous = id;
  }
  return nodes;
}

/** The root-to-`leaf` path (a cycle or a missing parent ends it). */
export function pathTo<T>(
  leaf: TreeNode<T>,
  byId: ReadonlyMap<string, TreeNode<T>>,
): TreeNode<T>[] {
  const path: TreeNode<T>[] = [];
  const seen = new Set<string>();
  for (let node: TreeNode<T> | undefined = leaf; node !== undefined && !seen.has(node.id); ) {
    seen.add(node.id);
    path.push(node);
    node = node.parentId === undefined ? undefined : byId.get(node.parentId);
  }
  return path.reverse();
}

/** The entries of one session read from a tree. */
export interface TreeSession<T> {
  /** The main session's key, or the branch's (`<id>#<id of its first entry>`). */
  key: SourceKey;
  /** Its entries in file order. */
  nodes: TreeNode<T>[];
  /** Set on branches: the session the branch forks. */
  forkOf?: SourceKey;
  /** Set on branches: the last entry they share with the session they fork (where they part). */
  divergence?: TreeNode<T>;
}

/**
 * The sessions of an append-only tree (pi's, Claude Code's), named so that entries appended later
 * never rename or rewrite one: a re-import then finds every session it wrote before and only
 * appends to it, and a branch started since becomes a new session. From each entry that starts a
 * session, the session follows the first child (in file order) of every entry; a later child
 * starts a session of its own. The first root starts the main one (`key`); one started at entry
 * `c` is `<sessionId>#<c's id>` and forks, where they part (`c`'s parent), the session holding
 * `c`'s parent (a later root's forks the main one). Appending to a file only lengthens a session's
 * first-child path or adds children after the first, so what each key names only grows. Sessions
 * come in the file order of the entries that start them, so a session comes after the one it forks.
 *
 * With `opensBranch`, a child whose subtree holds no entry opening a branch starts no session: it
 * and its subtree belong to the session of its parent, in file order (Claude Code chains the
 * results of parallel tool calls to their own calls, so each looks like a fork; only a prompt the
 * person typed again starts a conversation of its own), and the session follows the first child
 * whose subtree opens one. A branch also holds such subtrees hanging from the path it shares.
 */
export function appendOnlyTreeSessions<T>(
  key: SourceKey,
  nodes: readonly TreeNode<T>[],
  opensBranch?: (entry: T) => boolean,
): TreeSession<T>[] {
  if (nodes.length === 0) return [];
  if (isOneChain(nodes)) return [{ key, nodes: [...nodes] }];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const children = childrenOf(nodes, byId);
  const merges = mergingNodes(nodes, children, opensBranch);
  /** The child a session follows from `node`. */
  const next = (node: TreeNode<T>) => {
    const below = children.get(node.id);
    return below?.find((child) => !merges(child)) ?? below?.[0];
  };
  const ownerOf = new Map<TreeNode<T>, SourceKey>();
  const started: { start: TreeNode<T>; key: SourceKey; own: TreeNode<T>[] }[] = [];
  /** Down the path from `start`, with the subtrees that merge into it; an entry met again ends it. */
  const take = (start: TreeNode<T>, session: { key: SourceKey; own: TreeNode<T>[] }) => {
    const stack = [start];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (ownerOf.has(node)) continue;
      ownerOf.set(node, session.key);
      session.own.push(node);
      const path = next(node);
      const below = children.get(node.id) ?? [];
      stack.push(...below.filter((child) => child !== path && merges(child)).reverse());
      if (path !== undefined) stack.push(path);
    }
  };
  const startAt = (start: TreeNode<T>) => {
    const sessionKey =
      started.length === 0 ? key : { tool: key.tool, sessionId: `${key.sessionId}#${start.id}` };
    const session = { start, key: sessionKey, own: [] as TreeNode<T>[] };
    take(start, session);
    started.push(session);
  };
  for (const node of nodes) {
    const parent = node.parentId === undefined ? undefined : byId.get(node.parentId);
    if (parent !== undefined && (next(parent) === node || merges(node))) continue;
    // A later root that opens no branch (bookkeeping) belongs to the main session.
    if (parent === undefined && started.length > 0 && merges(node)) take(node, started[0]!);
    else startAt(node);
  }
  // Entries no walk reached (a cycle with no way in) start sessions of their own.
  for (const node of nodes) if (!ownerOf.has(node)) startAt(node);
  const byIndex = (a: TreeNode<T>, b: TreeNode<T>) => a.index - b.index;
  return started.map(({ start, key: sessionKey, own }, index) => {
    if (index === 0) return { key: sessionKey, nodes: own.sort(byIndex) };
    const mine = new Set(own);
    // The entry it hangs from, unless it has none or it is its own (a cycle): then it forks the
    // main session, sharing nothing.
    const named = start.parentId === undefined ? undefined : byId.get(start.parentId);
    const parent = named === undefined || mine.has(named) ? undefined : named;
    const above = parent === undefined ? [] : pathTo(parent, byId).filter((n) => !mine.has(n));
    const shared = new Set(above);
    // The subtrees that merge into the shared path (results of parallel tool calls) are shared too.
    for (const node of above) {
      const stack = (children.get(node.id) ?? []).filter((c) => !shared.has(c) && merges(c));
      for (let side = stack.pop(); side !== undefined; side = stack.pop()) {
        if (shared.has(side) || mine.has(side)) continue;
        shared.add(side);
        stack.push(...(children.get(side.id) ?? []));
      }
    }
    return {
      key: sessionKey,
      nodes: [...shared, ...own].sort(byIndex),
      forkOf: (parent === undefined ? undefined : ownerOf.get(parent)) ?? key,
      ...(parent === undefined ? {} : { divergence: parent }),
    };
  });
}

/**
 * Which entries merge into the session of their parent instead of starting one: with
 * `opensBranch`, those whose subtree holds no entry opening a branch; without it, none.
 */
function mergingNodes<T>(
  nodes: readonly TreeNode<T>[],
  children: ReadonlyMap<string, TreeNode<T>[]>,
  opensBranch: ((entry: T) => boolean) | undefined,
): (node: TreeNode<T>) => boolean {
  if (opensBranch === undefined) return () => false;
  const branching = new Set<TreeNode<T>>();
  // Children come after their parents in a file: one backward pass marks every subtree that holds
  // an entry opening a branch.
  for (let index = nodes.length - 1; index >= 0; index -= 1) {
    const node = nodes[index]!;
    const below = children.get(node.id) ?? [];
    if (opensBranch(node.entry) || below.some((child) => branching.has(child))) branching.add(node);
  }
  return (node) => !branching.has(node);
}

/** Each entry's children by its id, in file order (an unknown parent makes a root). */
function childrenOf<T>(
  nodes: readonly TreeNode<T>[],
  byId: ReadonlyMap<string, TreeNode<T>>,
): Map<string, TreeNode<T>[]> {
  const children = new Map<string, TreeNode<T>[]>();
  for (const node of nodes) {
    if (node.parentId === undefined || !byId.has(node.parentId)) continue;
    const siblings = children.get(node.parentId) ?? [];
    siblings.push(node);
    children.set(node.parentId, siblings);
  }
  return children;
}

/**
 * True when every entry's parent is the entry before it (the first one a root) and no id repeats:
 * then the path to the last entry holds every entry, in file order, and there is no branch, which
 * is what the general walk of {@link appendOnlyTreeSessions} gives for such a tree, without its maps.
 */
function isOneChain<T>(nodes: readonly TreeNode<T>[]): boolean {
  const ids = new Set<string>();
  let previous: string | undefined;
  for (const node of nodes) {
    if (ids.has(node.id)) return false;
    if (previous !== undefined && node.parentId !== previous) return false;
    ids.add(node.id);
    previous = node.id;
  }
  // A first entry naming a parent that comes later in the file is no root.
  const first = nodes[0]!;
  return first.parentId === undefined || !ids.has(first.parentId);
}
