import { describe, expect, it } from "vitest";
import { appendOnlyTreeSessions, buildTree, type TreeNode, treeSessions } from "./entry-tree";

interface Entry {
  id: string;
  parentId?: string;
  prompt?: boolean;
}

const key = { tool: "pi" as const, sessionId: "s" };

/** The sessions of `entries` as `sessionId: line numbers`. */
function sessionsOf(entries: Entry[], opensBranch?: (entry: Entry) => boolean): string[] {
  return treeSessions(key, nodesOf(entries), opensBranch).map(
    (session) => `${session.key.sessionId}: ${session.nodes.map((node) => node.line).join(",")}`,
  );
}

function nodesOf(entries: Entry[]): TreeNode<Entry>[] {
  return buildTree(
    entries.map((value, index) => ({ value, line: index + 1, offset: 0 })),
    { id: (entry) => entry.id, parentId: (entry) => entry.parentId },
  );
}

/** {@link appendOnlyTreeSessions} as `sessionId: line numbers < forked session`. */
function appendOnlyOf(entries: Entry[]): string[] {
  return appendOnlyTreeSessions(key, nodesOf(entries)).map(
    (session) =>
      `${session.key.sessionId}: ${session.nodes.map((node) => node.line).join(",")}` +
      (session.forkOf === undefined ? "" : ` < ${session.forkOf.sessionId}`),
  );
}

describe("appendOnlyTreeSessions", () => {
  const tree = [
    { id: "a" },
    { id: "b", parentId: "a" },
    { id: "c", parentId: "b" },
    { id: "d", parentId: "a" },
    { id: "e", parentId: "d" },
  ];

  it("follows first children; a later child starts a session forking the one holding its parent", () => {
    expect(appendOnlyOf(tree)).toEqual(["s: 1,2,3", "s#d: 1,4,5 < s"]);
    // A branch of the branch forks the branch; a second root forks the main session.
    expect(
      appendOnlyOf([...tree, { id: "f", parentId: "d" }, { id: "g" }, { id: "h", parentId: "g" }]),
    ).toEqual(["s: 1,2,3", "s#d: 1,4,5 < s", "s#f: 1,4,6 < s#d", "s#g: 7,8 < s"]);
  });

  it("keeps every session's name and entries when entries are appended anywhere (only grows)", () => {
    const before = appendOnlyOf(tree);
    const after = appendOnlyOf([
      ...tree,
      { id: "x", parentId: "c" },
      { id: "y", parentId: "b" },
      { id: "z", parentId: "e" },
    ]);
    expect(after).toEqual(["s: 1,2,3,6", "s#d: 1,4,5,8 < s", "s#y: 1,2,7 < s"]);
    for (const [index, session] of before.entries()) {
      const [name, lines] = session.split(" < ")[0]!.split(": ");
      expect(after[index]!.startsWith(`${name}: ${lines}`)).toBe(true);
    }
  });

  it("gives an entry in a cycle (no way in from a root) a session of its own", () => {
    expect(
      appendOnlyOf([{ id: "a" }, { id: "b", parentId: "c" }, { id: "c", parentId: "b" }]),
    ).toEqual(["s: 1", "s#b: 2,3 < s"]);
  });
});

describe("treeSessions", () => {
  it("reads a chain (each entry's parent the one before) as one session in file order", () => {
    const chain = [{ id: "a" }, { id: "b", parentId: "a" }, { id: "c", parentId: "b" }];
    expect(sessionsOf(chain)).toEqual(["s: 1,2,3"]);
    expect(sessionsOf(chain, () => true)).toEqual(["s: 1,2,3"]);
  });

  it("reads a tree as the path to the last entry plus one branch per other leaf", () => {
    const tree = [
      { id: "a" },
      { id: "b", parentId: "a" },
      { id: "c", parentId: "a" },
      { id: "d", parentId: "c" },
    ];
    expect(sessionsOf(tree)).toEqual(["s: 1,3,4", "s#b: 1,2"]);
  });

  it("walks the tree, not the chain, when an id repeats or the first entry names a later parent", () => {
    // A repeated id: the path from the last entry back (a cycle ends it), not every entry.
    const repeated = [
      { id: "a" },
      { id: "b", parentId: "a" },
      { id: "a", parentId: "b" },
      { id: "c", parentId: "a" },
    ];
    expect(sessionsOf(repeated)).toEqual(["s: 2,3,4"]);
    // The first entry's parent is the last one: no root at all.
    const loop = [
      { id: "a", parentId: "b" },
      { id: "b", parentId: "a" },
    ];
    expect(sessionsOf(loop)).toEqual(["s: 1,2"]);
  });
});
