import { describe, expect, it } from "vitest";
import { importedSessionId } from "../ids";
import { convertClaudeCode } from "./claude-code";
import { fileOf, replays, typesOf } from "./test-lines";

const sid = "11111111-2222-3333-4444-555555555555";
let clock = 0;
function entry(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  clock += 1;
  return {
    type,
    uuid: `u-${clock}`,
    sessionId: sid,
    cwd: "/home/me/project",
    isSidechain: false,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString(),
    ...fields,
  };
}
const user = (content: unknown, fields: Record<string, unknown> = {}) =>
  entry("user", { message: { role: "user", content }, ...fields });
const assistant = (content: unknown[], fields: Record<string, unknown> = {}) =>
  entry("assistant", {
    message: { id: "msg_1", role: "assistant", model: "claude-sonnet-4-5", content },
    ...fields,
  });

describe("convertClaudeCode", () => {
  it("maps prompts, text, thinking, tool_use and tool_result into turns with the original ids", () => {
    const file = fileOf("/p/x.jsonl", [
      entry("file-history-snapshot", { snapshot: {} }),
      user("fix the build"),
      assistant([{ type: "thinking", thinking: "let me look" }]),
      assistant([{ type: "text", text: "Running it." }]),
      assistant([{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "make" } }]),
      user([
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "ok" }] },
      ]),
      assistant([{ type: "text", text: "Fixed." }]),
      user("thanks"),
    ]);
    const { sessions, skipped } = convertClaudeCode(file);
    expect(skipped).toEqual([]);
    const [session] = sessions;
    expect(session?.key).toEqual({ tool: "claude-code", sessionId: sid });
    expect(session?.cwd).toBe("/home/me/project");
    expect(typesOf(session!.events)).toEqual([
      "turn/start",
      "message",
      "x-claude-code-thinking",
      "message",
      "function_call",
      "function_call_output",
      "message",
      "turn/end",
      // "thanks" is not answered yet: its turn stays open, as a running session's is.
      "turn/start",
      "message",
    ]);
    const call = session!.events[4] as Record<string, unknown>;
    expect(call).toMatchObject({
      callId: "toolu_1",
      name: "Bash",
      arguments: '{"command":"make"}',
    });
    expect(session!.events[5]).toMatchObject({
      callId: "toolu_1",
      output: "ok",
      sourceEventSeqs: [5],
    });
    // A turn's model is the one named before it began (the reply names it after the prompt).
    expect(session!.events[0]).toMatchObject({ model: "claude-code:unknown" });
    expect(session!.events[8]).toMatchObject({ model: "anthropic:claude-sonnet-4-5" });
    expect(session!.events[1]?.ts).toBe("2026-01-01T00:00:02.000Z");
    replays(session!);
  });

  it("turns compact_boundary + isCompactSummary into a compaction replacing the visible history", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        user("first"),
        assistant([{ type: "text", text: "answer" }]),
        entry("system", { subtype: "compact_boundary", content: "Conversation compacted" }),
        user("Summary: we talked", { isCompactSummary: true }),
        user("next"),
      ]),
    );
    const events = sessions[0]!.events;
    expect(typesOf(events)).toContain("x-claude-code-compact-boundary");
    const compaction = events.find((event) => event.type === "compaction");
    expect(compaction).toMatchObject({ summary: "Summary: we talked", replaces: [2, 3] });
    replays(sessions[0]!);
  });

  it("keeps summary, meta, command and unknown entries as searchable x- events", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        { type: "summary", summary: "Build fix", leafUuid: "u-2" },
        user("<command-name>/model</command-name>"),
        user("Caveat: injected", { isMeta: true }),
        entry("brand-new-type", { content: "something new" }),
        user("real prompt"),
      ]),
    );
    const session = sessions[0]!;
    expect(session.title).toBe("Build fix");
    expect(typesOf(session.events)).toEqual([
      "x-claude-code-summary",
      "x-claude-code-command",
      "x-claude-code-meta",
      "x-claude-code-entry",
      "turn/start",
      "message",
    ]);
    expect(session.events[0]).toMatchObject({ text: "Build fix" });
  });

  it("closes an interrupted turn at the next prompt: unanswered calls get normalize's synthetic output, status cancelled", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        user("go"),
        assistant([{ type: "tool_use", id: "toolu_9", name: "Bash", input: {} }]),
        user([{ type: "text", text: "[Request interrupted by user for tool use]" }]),
        user("next"),
      ]),
    );
    const events = sessions[0]!.events;
    expect(typesOf(events).slice(-5)).toEqual([
      "x-claude-code-interrupt",
      "function_call_output",
      "turn/end",
      "turn/start",
      "message",
    ]);
    expect(events.at(-4)).toMatchObject({ callId: "toolu_9", synthetic: true, isError: true });
    expect(events.at(-3)).toMatchObject({ type: "turn/end", status: "cancelled" });
    replays(sessions[0]!);
  });

  it("leaves the last turn open, even one the source interrupted: the file may still grow", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        user("go"),
        assistant([{ type: "tool_use", id: "toolu_9", name: "Bash", input: {} }]),
        user([{ type: "text", text: "[Request interrupted by user for tool use]" }]),
      ]),
    );
    expect(typesOf(sessions[0]!.events)).toEqual([
      "turn/start",
      "message",
      "function_call",
      "x-claude-code-interrupt",
    ]);
    replays(sessions[0]!);
  });

  it("makes a slash command's expanded prompt the user message the model saw, marked with the command typed", () => {
    const init = user(
      "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
      { uuid: "cmd-1", parentUuid: null, version: "1.0.35" },
    );
    const expanded = user(
      [{ type: "text", text: "Please analyze this codebase and create a CLAUDE.md file." }],
      {
        isMeta: true,
        uuid: "exp-1",
        parentUuid: "cmd-1",
      },
    );
    const orchestrator = user(
      "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>ship the release</command-args>",
      { uuid: "cmd-2", parentUuid: "a-1" },
    );
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        init,
        expanded,
        assistant([{ type: "text", text: "Created CLAUDE.md." }], {
          uuid: "a-1",
          parentUuid: "exp-1",
        }),
        orchestrator,
        user("You orchestrate: ship the release", {
          isMeta: true,
          uuid: "exp-2",
          parentUuid: "cmd-2",
        }),
        // A local command: a caveat before it, its output after it; neither is a prompt.
        user(
          "Caveat: The messages below were generated by the user while running local commands.",
          {
            isMeta: true,
          },
        ),
        user("<command-name>/model</command-name>\n<command-args></command-args>"),
        user("<local-command-stdout>Set model to opus</local-command-stdout>"),
      ]),
    );
    const events = sessions[0]!.events;
    const prompts = events.filter((event) => event.type === "message" && event.role === "user");
    expect(prompts).toMatchObject([
      {
        content: "Please analyze this codebase and create a CLAUDE.md file.",
        command: "/init",
        uuid: "exp-1",
      },
      { content: "You orchestrate: ship the release", command: "/orchestrator ship the release" },
    ]);
    expect(typesOf(events)).toEqual([
      "x-claude-code-command",
      "turn/start",
      "message",
      "message",
      "x-claude-code-command",
      "turn/end",
      "turn/start",
      "message",
      "x-claude-code-meta",
      "x-claude-code-command",
      "x-claude-code-command",
    ]);
    replays(sessions[0]!);
  });

  it("keeps a meta entry that does not hang from the command before it as meta", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        user("go"),
        user("<command-name>/review</command-name>", { uuid: "cmd-9" }),
        user("injected elsewhere", { isMeta: true, parentUuid: "other" }),
      ]),
    );
    expect(typesOf(sessions[0]!.events)).toEqual([
      "turn/start",
      "message",
      "x-claude-code-command",
      "x-claude-code-meta",
    ]);
  });

  it("makes each sidechain its own session, linked from the parent where it started", () => {
    const { sessions } = convertClaudeCode(
      fileOf("/p/x.jsonl", [
        user("delegate"),
        assistant([{ type: "tool_use", id: "toolu_t", name: "Task", input: { prompt: "look" } }]),
        user("look around", { isSidechain: true, uuid: "side-1", parentUuid: null }),
        assistant([{ type: "text", text: "found it" }], {
          isSidechain: true,
          parentUuid: "side-1",
        }),
        user([{ type: "tool_result", tool_use_id: "toolu_t", content: "found it" }]),
      ]),
    );
    expect(sessions).toHaveLength(2);
    const [parent, child] = sessions;
    expect(child?.key.sessionId).toBe(`${sid}/sidechain-side-1`);
    expect(child?.parentOf).toEqual({ tool: "claude-code", sessionId: sid });
    expect(typesOf(child!.events)).toEqual(["turn/start", "message", "message"]);
    const link = parent!.events.find((event) => event.type === "x-claude-code-subagent");
    expect(link).toMatchObject({ originSessionId: `${sid}/sidechain-side-1`, text: "look around" });
    // Linked to the Task call that started it: seq 3 of the parent, its call id.
    expect(parent!.events[2]).toMatchObject({ type: "function_call", callId: "toolu_t" });
    expect(child!.spawnedBy).toEqual({
      sessionId: importedSessionId(parent!.key, parent!.createdAt),
      seq: 3,
      callId: "toolu_t",
    });
    replays(parent!);
    replays(child!);
  });

  it("reads subagents/agent-*.jsonl files with their parent", () => {
    const parent = fileOf("/p/x.jsonl", [
      user("delegate"),
      assistant([{ type: "text", text: "done" }]),
    ]);
    clock = 100;
    const agent = fileOf("/p/x/subagents/agent-a1.jsonl", [
      user("sub task", { isSidechain: true, agentId: "a1" }),
    ]);
    const { sessions } = convertClaudeCode(parent, [agent]);
    expect(sessions.map((session) => session.key.sessionId)).toEqual([sid, `${sid}/agent-a1`]);
    expect(typesOf(sessions[0]!.events)).toContain("x-claude-code-subagent");
  });

  it("drops entries repeated with the same uuid (a resumed session)", () => {
    const prompt = user("once");
    const { sessions } = convertClaudeCode(fileOf("/p/x.jsonl", [prompt, prompt]));
    expect(typesOf(sessions[0]!.events)).toEqual(["turn/start", "message"]);
  });

  it("skips a garbage line and a truncated last line, naming file and line", () => {
    const { sessions, skipped } = convertClaudeCode(
      fileOf("/p/x.jsonl", [user("ok"), "garbage{", 42, '{"type":"user","mess'], {
        trailingNewline: false,
      }),
    );
    expect(sessions[0]?.events.length).toBe(2);
    expect(skipped).toEqual([
      { path: "/p/x.jsonl", line: 2, offset: expect.any(Number), reason: "not JSON" },
      {
        path: "/p/x.jsonl",
        line: 3,
        offset: expect.any(Number),
        reason: "not a Claude Code entry",
      },
      { path: "/p/x.jsonl", line: 4, offset: expect.any(Number), reason: "truncated last line" },
    ]);
  });
});
