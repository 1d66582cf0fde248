import { describe, expect, it } from "vitest";
import { appendOnlyTreeSessions, buildTree, type TreeNode } from "./entry-tree";

interface Entry {
  id: string;
  parentId?: string;
  prompt?: boolean;
}

const key = { tool: "pi" as const, sessionId: "s" };

function nodesOf(entries: Entry[]): TreeNode<Entry>[] {
  return buildTree(
    entries.map((value, index) => ({ value, line: index + 1, offset: 0 })),
    { id: (entry) => entry.id, parentId: (entry) => entry.parentId },
  );
}

/** {@link appendOnlyTreeSessions} as `sessionId: line numbers < forked session`. */
function appendOnlyOf(entries: Entry[], opensBranch?: (entry: Entry) => boolean): string[] {
  return appendOnlyTreeSessions(key, nodesOf(entries), opensBranch).map(
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

describe("appendOnlyTreeSessions with opensBranch (Claude Code's rule)", () => {
  const prompt = (entry: Entry) => entry.prompt === true;

  it("reads a chain as one session in file order", () => {
    const chain = [{ id: "a" }, { id: "b", parentId: "a" }, { id: "c", parentId: "b" }];
    expect(appendOnlyOf(chain, prompt)).toEqual(["s: 1,2,3"]);
    expect(appendOnlyOf(chain, () => true)).toEqual(["s: 1,2,3"]);
  });

  it("keeps a subtree that opens no branch in the session it hangs from, first child or not", () => {
    // Parallel tool calls: results r1 (of c1) and r2 (of c2) each hang from their own call.
    const parallel = [
      { id: "u", prompt: true },
      { id: "c1", parentId: "u" },
      { id: "r1", parentId: "c1" },
      { id: "c2", parentId: "c1" },
      { id: "r2", parentId: "c2" },
      { id: "a", parentId: "r2" },
      { id: "u2", parentId: "a", prompt: true },
    ];
    expect(appendOnlyOf(parallel, prompt)).toEqual(["s: 1,2,3,4,5,6,7"]);
    // Without the rule every later child is a branch.
    expect(appendOnlyOf(parallel)).toEqual(["s: 1,2,3", "s#c2: 1,2,4,5,6,7 < s"]);
  });

  it("starts a session at a prompt typed again, sharing the side subtrees of the path above it", () => {
    const tree = [
      { id: "u", prompt: true },
      { id: "c1", parentId: "u" },
      { id: "c2", parentId: "c1" },
      { id: "r1", parentId: "c1" },
      { id: "r2", parentId: "c2" },
      { id: "a", parentId: "r2" },
      { id: "u2", parentId: "a", prompt: true },
      { id: "a2", parentId: "u2" },
      { id: "v2", parentId: "a", prompt: true },
      { id: "b2", parentId: "v2" },
    ];
    expect(appendOnlyOf(tree, prompt)).toEqual([
      "s: 1,2,3,4,5,6,7,8",
      "s#v2: 1,2,3,4,5,6,9,10 < s",
    ]);
    // Appending to either conversation only grows the sessions read before.
    expect(
      appendOnlyOf(
        [...tree, { id: "u3", parentId: "b2", prompt: true }, { id: "x", parentId: "a2" }],
        prompt,
      ),
    ).toEqual(["s: 1,2,3,4,5,6,7,8,12", "s#v2: 1,2,3,4,5,6,9,10,11 < s"]);
  });

  it("walks the tree, not the chain, when an id repeats or the first entry names a later parent", () => {
    const repeated = [
      { id: "a" },
      { id: "b", parentId: "a" },
      { id: "a", parentId: "b" },
      { id: "c", parentId: "a" },
    ];
    expect(appendOnlyOf(repeated, prompt)).toEqual(["s: 1,2,3,4"]);
    const loop = [
      { id: "a", parentId: "b" },
      { id: "b", parentId: "a" },
    ];
    expect(appendOnlyOf(loop, prompt)).toEqual(["s: 1,2"]);
  });
});
