import { describe, expect, it } from "vitest";
import { convertClaudeCode } from "./claude-code";
import { fileOf, replays } from "./test-lines";

// Claude Code chains every entry to the one before it by `parentUuid`. Editing an earlier
// message (or rewinding to it) writes the new message with the parent of the one it replaces:
// the old continuation stays in the file as a branch.
const sid = "22222222-3333-4444-5555-666666666666";
let clock = 0;
function entry(
  type: string,
  uuid: string,
  parentUuid: string | null,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  clock += 1;
  return {
    type,
    uuid,
    parentUuid,
    sessionId: sid,
    cwd: "/home/me/project",
    isSidechain: false,
    userType: "external",
    version: "2.1.38",
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString(),
    ...fields,
  };
}
const user = (uuid: string, parent: string | null, content: unknown) =>
  entry("user", uuid, parent, { message: { role: "user", content } });
const assistant = (uuid: string, parent: string, content: unknown[]) =>
  entry("assistant", uuid, parent, {
    message: { id: `msg_${uuid}`, role: "assistant", model: "claude-sonnet-4-5", content },
  });
const text = (value: string) => [{ type: "text", text: value }];
const toolUse = (id: string) => [{ type: "tool_use", id, name: "Bash", input: { command: id } }];
const toolResult = (id: string) => [{ type: "tool_result", tool_use_id: id, content: `ran ${id}` }];

const contents = (events: readonly object[]) =>
  events.flatMap((event) => ("content" in event ? [String(event.content)] : []));

describe("convertClaudeCode: parentUuid branches", () => {
  it("imports the conversation an edited message starts as a branch forking the one it replaces, which keeps its name", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/s.jsonl", [
        user("u1", null, "list the files"),
        assistant("a1", "u1", text("Here they are.")),
        user("u2", "a1", "delete the logs"),
        assistant("a2", "u2", text("Deleted.")),
        // The person edits "delete the logs": same parent as u2.
        user("u3", "a1", "archive the logs"),
        assistant("a3", "u3", text("Archived.")),
      ]),
    );
    expect(sessions).toHaveLength(2);
    const [main, branch] = sessions;
    // The session a first import wrote (before the edit) keeps its name and its entries, so a
    // re-import finds it unchanged: the file is append-only, and so are the sessions read from it.
    expect(main!.key).toEqual({ tool: "claude-code", sessionId: sid });
    expect(contents(main!.events)).toEqual([
      "list the files",
      "Here they are.",
      "delete the logs",
      "Deleted.",
    ]);
    expect(main!.forkOf).toBeUndefined();
    expect(branch!.key).toEqual({ tool: "claude-code", sessionId: `${sid}#u3` });
    expect(branch!.forkOf).toEqual(main!.key);
    expect(contents(branch!.events)).toEqual([
      "list the files",
      "Here they are.",
      "archive the logs",
      "Archived.",
    ]);
    // The turn before the edit is the same events in both: the fork shares it by reference.
    expect(branch!.events.slice(0, 4)).toEqual(main!.events.slice(0, 4));
    expect(branch!.events[4]).not.toEqual(main!.events[4]);
    replays(main!);
    replays(branch!);
  });

  it("keeps the results of parallel tool calls (chained to their own calls) in the one session", () => {
    // As Claude Code 2.1 writes two calls in one response: the first result hangs from the first call.
    const { sessions } = convertClaudeCode(
      fileOf("/p/s.jsonl", [
        user("u1", null, "check both"),
        assistant("c1", "u1", toolUse("toolu_a")),
        entry("progress", "p1", "c1", { data: { type: "hook_progress" } }),
        assistant("c2", "p1", toolUse("toolu_b")),
        user("r1", "c1", toolResult("toolu_a")),
        user("r2", "c2", toolResult("toolu_b")),
        assistant("a1", "r2", text("Both pass.")),
      ]),
    );
    expect(sessions).toHaveLength(1);
    const outputs = sessions[0]!.events.filter((event) => event.type === "function_call_output");
    expect(outputs.map((event) => ("output" in event ? event.output : ""))).toEqual([
      "ran toolu_a",
      "ran toolu_b",
    ]);
    replays(sessions[0]!);
  });

  it("follows a compact_boundary's logicalParentUuid instead of starting a branch", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/s.jsonl", [
        user("u1", null, "first task"),
        assistant("a1", "u1", text("Done.")),
        entry("system", "b1", null, {
          subtype: "compact_boundary",
          content: "Conversation compacted",
          logicalParentUuid: "a1",
        }),
        entry("user", "s1", "b1", {
          isCompactSummary: true,
          message: { role: "user", content: "Summary: the first task is done." },
        }),
        user("u2", "s1", "second task"),
        assistant("a2", "u2", text("Also done.")),
      ]),
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.events.map((event) => event.type)).toContain("compaction");
  });

  it("makes every later try its own branch, each forking the session of the first", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/s.jsonl", [
        user("u1", null, "one"),
        assistant("a1", "u1", text("1")),
        user("x", "a1", "two, first try"),
        assistant("xa", "x", text("2a")),
        user("y", "a1", "two, second try"),
        assistant("ya", "y", text("2b")),
        user("z", "a1", "two, third try"),
        assistant("za", "z", text("2c")),
      ]),
    );
    expect(sessions.map((session) => session.key.sessionId)).toEqual([sid, `${sid}#y`, `${sid}#z`]);
    expect(contents(sessions[0]!.events).at(-1)).toBe("2a");
    expect(contents(sessions[2]!.events)).toEqual(["one", "1", "two, third try", "2c"]);
    expect(sessions.slice(1).every((session) => session.forkOf?.sessionId === sid)).toBe(true);
  });
});
