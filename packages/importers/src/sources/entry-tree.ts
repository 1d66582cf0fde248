/**
 * Sources whose entries form a tree (pi's `id`/`parentId`, Claude Code's `uuid`/`parentUuid`):
 * which entries make up the main session and which make up each branch, each branch imported as
 * its own session that forks another by reference where they part. Claude Code's rule
 * ({@link treeSessions}): the path to the last entry of the file is the session. pi's
 * ({@link appendOnlyTreeSessions}): the first child at every entry, so that a re-import after a
 * branch switch finds the sessions it wrote before.
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
  /** The main session's key, or the branch's (`<id>#<leaf id>`). */
  key: SourceKey;
  /** Its entries in file order. */
  nodes: TreeNode<T>[];
  /** Set on branches: the main session, which the branch forks. */
  forkOf?: SourceKey;
  /** Set on branches: the last entry they share with the main session (where they part). */
  divergence?: TreeNode<T>;
}

/**
 * The sessions of a tree: the main one (the path to the last entry, under `key`) first, then one
 * per other leaf, in file order (`<sessionId>#<leaf id>`, forking the main session).
 *
 * With `opensBranch`, a side subtree in which no entry opens a branch is not a branch: its entries
 * belong to the session whose path it hangs from, in file order (Claude Code chains the results of
 * parallel tool calls to their own calls, so each looks like a fork; only a prompt the person
 * typed again starts a conversation of its own). Without it every leaf is a branch.
 */
export function treeSessions<T>(
  key: SourceKey,
  nodes: readonly TreeNode<T>[],
  opensBranch?: (entry: T) => boolean,
): TreeSession<T>[] {
  const last = nodes.at(-1);
  if (last === undefined) return [];
  // Most files are one chain (each entry's parent the entry before): that is the whole session.
  if (isOneChain(nodes)) return [{ key, nodes: [...nodes] }];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const children = childrenOf(nodes, byId);
  const branching = new Set<string>();
  if (opensBranch !== undefined) {
    // Children come after their parents in a file: one backward pass marks every subtree that
    // holds an entry opening a branch.
    for (let index = nodes.length - 1; index >= 0; index -= 1) {
      const node = nodes[index]!;
      const below = children.get(node.id) ?? [];
      if (opensBranch(node.entry) || below.some((child) => branching.has(child.id)))
        branching.add(node.id);
    }
  }
  const merges = (node: TreeNode<T>) => opensBranch !== undefined && !branching.has(node.id);
  const covered = new Set<string>();
  const sessionOf = (leaf: TreeNode<T>, extra: TreeNode<T>[] = []): TreeNode<T>[] => {
    const path = pathTo(leaf, byId);
    const members = new Set(path);
    const stack = path.flatMap((node) =>
      (children.get(node.id) ?? []).filter((child) => !members.has(child) && merges(child)),
    );
    stack.push(...extra.filter((node) => !members.has(node) && merges(node)));
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      members.add(node);
      stack.push(...(children.get(node.id) ?? []));
    }
    const sorted = [...members].sort((a, b) => a.index - b.index);
    for (const node of sorted) covered.add(node.id);
    return sorted;
  };
  // Other roots that open no branch (bookkeeping before the first entry) belong to the main one.
  const roots = nodes.filter((node) => node.parentId === undefined || !byId.has(node.parentId));
  const main = sessionOf(last, roots);
  const mainIds = new Set(main.map((node) => node.id));
  const branches: TreeSession<T>[] = [];
  // The newest entry no session holds yet is a leaf (its children would have covered it).
  for (let index = nodes.length - 1; index >= 0; index -= 1) {
    const leaf = nodes[index]!;
    if (covered.has(leaf.id)) continue;
    const members = sessionOf(leaf);
    const divergence = pathTo(leaf, byId).findLast((node) => mainIds.has(node.id));
    branches.push({
      key: { tool: key.tool, sessionId: `${key.sessionId}#${leaf.id}` },
      nodes: members,
      forkOf: key,
      ...(divergence === undefined ? {} : { divergence }),
    });
  }
  return [{ key, nodes: main }, ...branches.reverse()];
}

/**
 * The sessions of an append-only tree (pi's), named so that entries appended later never rename or
 * rewrite one: a re-import then finds every session it wrote before and only appends to it, and a
 * branch started since becomes a new session. From each entry that starts a session, the session
 * follows the first child (in file order) of every entry; a later child starts a session of its
 * own. The first root starts the main one (`key`); one started at entry `c` is `<sessionId>#<c's id>`
 * and forks, where they part (`c`'s parent), the session holding `c`'s parent (a later root's forks
 * the main one). Appending to a file only lengthens a session's first-child path or adds children
 * after the first, so what each key names only grows. Sessions come in the file order of the
 * entries that start them, so a session comes after the one it forks.
 */
export function appendOnlyTreeSessions<T>(
  key: SourceKey,
  nodes: readonly TreeNode<T>[],
): TreeSession<T>[] {
  if (nodes.length === 0) return [];
  if (isOneChain(nodes)) return [{ key, nodes: [...nodes] }];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const children = childrenOf(nodes, byId);
  const ownerOf = new Map<TreeNode<T>, SourceKey>();
  const started: { start: TreeNode<T>; key: SourceKey; own: TreeNode<T>[] }[] = [];
  const startAt = (start: TreeNode<T>) => {
    const own: TreeNode<T>[] = [];
    const sessionKey =
      started.length === 0 ? key : { tool: key.tool, sessionId: `${key.sessionId}#${start.id}` };
    // Down the first children; an entry met again (a cycle, a repeated id) ends the walk.
    for (let node: TreeNode<T> | undefined = start; node !== undefined && !ownerOf.has(node); ) {
      ownerOf.set(node, sessionKey);
      own.push(node);
      node = children.get(node.id)?.[0];
    }
    started.push({ start, key: sessionKey, own });
  };
  for (const node of nodes) {
    const parent = node.parentId === undefined ? undefined : byId.get(node.parentId);
    if (parent === undefined || children.get(parent.id)?.[0] !== node) startAt(node);
  }
  // Entries no walk reached (a cycle with no way in) start sessions of their own.
  for (const node of nodes) if (!ownerOf.has(node)) startAt(node);
  return started.map(({ start, key: sessionKey, own }, index) => {
    if (index === 0) return { key: sessionKey, nodes: own };
    const mine = new Set(own);
    // The entry it hangs from, unless it has none or it is its own (a cycle): then it forks the
    // main session, sharing nothing.
    const named = start.parentId === undefined ? undefined : byId.get(start.parentId);
    const parent = named === undefined || mine.has(named) ? undefined : named;
    const above = parent === undefined ? [] : pathTo(parent, byId).filter((n) => !mine.has(n));
    return {
      key: sessionKey,
      nodes: [...above, ...own].sort((a, b) => a.index - b.index),
      forkOf: (parent === undefined ? undefined : ownerOf.get(parent)) ?? key,
      ...(parent === undefined ? {} : { divergence: parent }),
    };
  });
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
 * is what the general walk of {@link treeSessions} gives for such a tree, without its maps.
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
