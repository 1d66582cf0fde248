import { describe, expect, it } from "vitest";
import { buildTree, treeSessions } from "./entry-tree";

interface Entry {
  id: string;
  parentId?: string;
  prompt?: boolean;
}

const key = { tool: "pi" as const, sessionId: "s" };

/** The sessions of `entries` as `sessionId: line numbers`. */
function sessionsOf(entries: Entry[], opensBranch?: (entry: Entry) => boolean): string[] {
  const nodes = buildTree(
    entries.map((value, index) => ({ value, line: index + 1, offset: 0 })),
    { id: (entry) => entry.id, parentId: (entry) => entry.parentId },
  );
  return treeSessions(key, nodes, opensBranch).map(
    (session) => `${session.key.sessionId}: ${session.nodes.map((node) => node.line).join(",")}`,
  );
}

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
