import { describe, expect, it } from "vitest";
import type { ConvertedSession } from "../types";
import { convertPi } from "./pi";
import { fileOf, replays, typesOf } from "./test-lines";

const header = (version?: number) => ({
  type: "session",
  ...(version === undefined ? {} : { version }),
  id: "2638daee-0588-4baa-bd33-68b4c002818e",
  timestamp: "2025-12-24T00:32:27.967Z",
  cwd: "/Users/me/project",
});
const message = (
  id: string | undefined,
  parentId: string | null | undefined,
  body: Record<string, unknown>,
) => ({
  type: "message",
  ...(id === undefined ? {} : { id, parentId }),
  timestamp: "2025-12-24T00:33:00.000Z",
  message: { timestamp: 1766536380000, ...body },
});
const user = (id: string | undefined, parentId: string | null | undefined, text: string) =>
  message(id, parentId, { role: "user", content: [{ type: "text", text }] });
const assistant = (
  id: string | undefined,
  parentId: string | null | undefined,
  content: unknown[],
  extra = {},
) =>
  message(id, parentId, {
    role: "assistant",
    content,
    provider: "anthropic",
    model: "claude-opus-4-5",
    stopReason: "stop",
    ...extra,
  });

describe("convertPi", () => {
  it("imports a file with an entry's time out of Date's range, the entry at the time before it", () => {
    const { sessions, skipped } = convertPi(
      fileOf("/s/a.jsonl", [
        header(),
        { ...user(undefined, undefined, "hello"), timestamp: 1e20 },
        assistant(undefined, undefined, [{ type: "text", text: "hi" }]),
      ]),
    );
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    replays(sessions[0]!);
    const times = sessions[0]!.events.map((event) => event.ts);
    expect(times.every((time) => !Number.isNaN(Date.parse(time)))).toBe(true);
  });

  it("reads a v1 file (no ids) linearly: prompts, text, thinking, toolCall and toolResult", () => {
    const { sessions, skipped } = convertPi(
      fileOf("/s/a.jsonl", [
        header(),
        user(undefined, undefined, "fix issue 288"),
        assistant(
          undefined,
          undefined,
          [
            { type: "thinking", thinking: "look at the issue" },
            {
              type: "toolCall",
              id: "toolu_1",
              name: "bash",
              arguments: { command: "gh issue view 288" },
            },
          ],
          { stopReason: "toolUse" },
        ),
        message(undefined, undefined, {
          role: "toolResult",
          toolCallId: "toolu_1",
          toolName: "bash",
          content: [{ type: "text", text: "issue body" }],
          isError: false,
        }),
        assistant(undefined, undefined, [{ type: "text", text: "Done." }]),
      ]),
    );
    expect(skipped).toEqual([]);
    const session = sessions[0]!;
    expect(session.key.sessionId).toBe("2638daee-0588-4baa-bd33-68b4c002818e");
    expect(session.cwd).toBe("/Users/me/project");
    expect(typesOf(session.events)).toEqual([
      "turn/start",
      "message",
      "x-pi-thinking",
      "function_call",
      "function_call_output",
      "message",
    ]);
    // The reply names the model after the prompt; a turn/start is never changed once written.
    expect(session.events[0]).toMatchObject({ model: "pi:unknown" });
    expect(session.events[3]).toMatchObject({
      callId: "toolu_1",
      arguments: '{"command":"gh issue view 288"}',
    });
    replays(session);
  });

  it("imports a v3 tree: the first child's path is the session, a later child starts a branch that forks it", () => {
    const { sessions } = convertPi(
      fileOf("/s/b.jsonl", [
        header(3),
        user("a1", null, "first question"),
        assistant("a2", "a1", [{ type: "text", text: "first answer" }]),
        user("b1", "a2", "abandoned follow-up"),
        assistant("b2", "b1", [{ type: "text", text: "abandoned answer" }]),
        {
          type: "branch_summary",
          id: "c0",
          parentId: "a2",
          fromId: "b2",
          summary: "tried something",
          timestamp: "2025-12-24T00:34:00.000Z",
        },
        user("c1", "c0", "better follow-up"),
        assistant("c2", "c1", [{ type: "text", text: "better answer" }]),
      ]),
    );
    // Named after where each starts, not after the current leaf: a later `/tree` renames nothing.
    expect(sessions.map((session) => session.key.sessionId)).toEqual([
      "2638daee-0588-4baa-bd33-68b4c002818e",
      "2638daee-0588-4baa-bd33-68b4c002818e#c0",
    ]);
    const [main, branch] = sessions;
    const texts = (events: ConvertedSession["events"]) =>
      events.flatMap((event) => ("content" in event ? [String(event.content)] : []));
    expect(texts(main!.events)).toEqual([
      "first question",
      "first answer",
      "abandoned follow-up",
      "abandoned answer",
    ]);
    expect(typesOf(branch!.events)).toContain("x-pi-branch-summary");
    expect(typesOf(main!.events)).not.toContain("x-pi-branch-summary");
    expect(texts(branch!.events).filter((text) => text !== "tried something")).toEqual([
      "first question",
      "first answer",
      "better follow-up",
      "better answer",
    ]);
    expect(branch?.forkOf).toEqual(main?.key);
    replays(main!);
    replays(branch!);
  });

  it("maps compaction with firstKeptEntryId to a compaction replacing only what came before it", () => {
    const { sessions } = convertPi(
      fileOf("/s/c.jsonl", [
        header(3),
        user("a1", null, "old"),
        assistant("a2", "a1", [{ type: "text", text: "old answer" }]),
        user("a3", "a2", "kept"),
        assistant("a4", "a3", [{ type: "text", text: "kept answer" }]),
        {
          type: "compaction",
          id: "a5",
          parentId: "a4",
          summary: "we discussed old things",
          firstKeptEntryId: "a3",
          tokensBefore: 1000,
          timestamp: "2025-12-24T00:35:00.000Z",
        },
        user("a6", "a5", "after"),
      ]),
    );
    const compaction = sessions[0]!.events.find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({ summary: "we discussed old things", replaces: [2, 3] });
    const session = replays(sessions[0]!);
    expect(
      session
        .history()
        .map((item) => ("content" in item ? item.content : "summary" in item ? item.summary : "")),
    ).toEqual(["we discussed old things", "kept", "kept answer", "after"]);
  });

  it("repairs calls of an aborted turn that never got a result and marks the turn cancelled", () => {
    const { sessions } = convertPi(
      fileOf("/s/d.jsonl", [
        header(2),
        user("a1", null, "go"),
        assistant("a2", "a1", [{ type: "toolCall", id: "t1", name: "bash", arguments: {} }], {
          stopReason: "aborted",
        }),
        user("a3", "a2", "never mind"),
      ]),
    );
    const events = sessions[0]!.events;
    expect(events[3]).toMatchObject({
      type: "function_call_output",
      callId: "t1",
      synthetic: true,
    });
    expect(events[4]).toMatchObject({ type: "turn/end", status: "cancelled" });
    replays(sessions[0]!);
  });

  it("keeps bashExecution, model_change, label and custom entries as x- events", () => {
    const { sessions } = convertPi(
      fileOf("/s/e.jsonl", [
        header(3),
        {
          type: "model_change",
          id: "m1",
          parentId: null,
          provider: "openai",
          modelId: "gpt-5",
          timestamp: 1766536380000,
        },
        message("m2", "m1", { role: "bashExecution", command: "ls", output: "a.txt", exitCode: 0 }),
        { type: "label", id: "m3", parentId: "m2", label: "checkpoint", targetId: "m2" },
        { type: "custom", id: "m4", parentId: "m3", customType: "ext", data: { x: 1 } },
        user("m5", "m4", "go"),
      ]),
    );
    const events = sessions[0]!.events;
    expect(typesOf(events)).toEqual([
      "x-pi-model-change",
      "x-pi-bash",
      "x-pi-label",
      "x-pi-custom",
      "turn/start",
      "message",
    ]);
    expect(events[1]).toMatchObject({ text: "$ ls\na.txt" });
    expect(events[4]).toMatchObject({ model: "openai:gpt-5" });
  });
});
