import { describe, expect, it } from "vitest";
import { convertCodex } from "./codex";
import { fileOf, replays, typesOf } from "./test-lines";

const id = "019b64e5-57fa-7463-b644-fba7e456f905";
let second = 0;
const line = (type: string, payload: unknown) => {
  second += 1;
  return {
    timestamp: new Date(Date.UTC(2025, 11, 28, 12, 0, second)).toISOString(),
    type,
    payload,
  };
};
const meta = (extra: Record<string, unknown> = {}) =>
  line("session_meta", {
    id,
    timestamp: "2025-12-28T12:00:00.000Z",
    cwd: "/work/app",
    instructions: "Be terse.",
    ...extra,
  });
const item = (payload: Record<string, unknown>) => line("response_item", payload);
const userText = (text: string) =>
  item({ type: "message", role: "user", content: [{ type: "input_text", text }] });

describe("convertCodex", () => {
  it("maps session_meta, injected context, prompts, calls, outputs and reasoning", () => {
    const { sessions, skipped } = convertCodex(
      fileOf("/c/rollout.jsonl", [
        meta(),
        userText("<environment_context>\n<cwd>/work/app</cwd>\n</environment_context>"),
        userText("list files"),
        line("event_msg", { type: "user_message", message: "list files" }),
        line("turn_context", {
          cwd: "/work/app",
          model: "gpt-5-codex",
          approval_policy: "on-request",
        }),
        item({
          type: "reasoning",
          summary: [{ type: "summary_text", text: "I should run ls" }],
          encrypted_content: "xxx",
        }),
        item({
          type: "function_call",
          name: "shell",
          arguments: '{"command":["ls"]}',
          call_id: "call_1",
        }),
        item({ type: "function_call_output", call_id: "call_1", output: "a.txt" }),
        item({
          type: "custom_tool_call",
          name: "apply_patch",
          input: "*** Begin Patch",
          call_id: "call_2",
        }),
        item({
          type: "custom_tool_call_output",
          call_id: "call_2",
          output: { content: "failed", success: false },
        }),
        item({
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "One file." }],
        }),
        line("event_msg", { type: "agent_message", message: "One file." }),
        item({ type: "web_search_call", action: { type: "search", query: "codex docs" } }),
      ]),
    );
    expect(skipped).toEqual([]);
    const session = sessions[0]!;
    expect(session.key).toEqual({ tool: "codex", sessionId: id });
    expect(session.cwd).toBe("/work/app");
    expect(typesOf(session.events)).toEqual([
      "x-codex-instructions",
      "x-codex-context",
      "turn/start",
      "message",
      "x-codex-reasoning",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "message",
      "x-codex-web-search",
    ]);
    // turn_context follows the prompt: the model names later turns' (a turn/start is never
    // changed once written, so a rollout that grew converts to what was imported before).
    expect(session.events[2]).toMatchObject({ model: "openai:unknown" });
    expect(session.events[4]).toMatchObject({ text: "I should run ls" });
    expect(session.events[4]).not.toHaveProperty("encrypted_content");
    expect(session.events[7]).toMatchObject({
      name: "apply_patch",
      arguments: '{"input":"*** Begin Patch"}',
    });
    expect(session.events[8]).toMatchObject({ output: "failed", isError: true });
    replays(session);
  });

  it("turns compacted into a compaction and turn_aborted into a cancelled turn", () => {
    const { sessions } = convertCodex(
      fileOf("/c/rollout.jsonl", [
        meta(),
        userText("first"),
        item({
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "ok" }],
        }),
        line("compacted", { message: "summary of the work", replacement_history: [] }),
        userText("second"),
        item({ type: "function_call", name: "shell", arguments: "{}", call_id: "c9" }),
        line("event_msg", { type: "turn_aborted", reason: "interrupted" }),
        userText("third"),
      ]),
    );
    const events = sessions[0]!.events;
    expect(events.find((event) => event.type === "compaction")).toMatchObject({
      summary: "summary of the work",
      replaces: [3, 4],
    });
    expect(events.at(-3)).toMatchObject({ type: "turn/end", status: "cancelled" });
    expect(events.at(-4)).toMatchObject({ type: "function_call_output", synthetic: true });
    replays(sessions[0]!);
  });

  it("names the session a rollout was forked from", () => {
    const { sessions } = convertCodex(
      fileOf("/c/r.jsonl", [meta({ forked_from_id: "parent-id" }), userText("hi")]),
    );
    expect(sessions[0]?.forkOf).toEqual({ tool: "codex", sessionId: "parent-id" });
  });

  it("reads the pre-September-2025 shape (bare items, record_type lines)", () => {
    const { sessions, skipped } = convertCodex(
      fileOf("/c/rollout-2025-05-01T10-00-00-0196a000-0000-7000-8000-000000000000.jsonl", [
        {
          id: "0196a000-0000-7000-8000-000000000000",
          timestamp: "2025-05-01T10:00:00Z",
          instructions: null,
          git: {},
        },
        { record_type: "state" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "old prompt" }] },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "old answer" }],
        },
      ]),
    );
    expect(skipped).toEqual([]);
    expect(sessions[0]?.key.sessionId).toBe("0196a000-0000-7000-8000-000000000000");
    expect(typesOf(sessions[0]!.events)).toEqual(["turn/start", "message", "message"]);
  });

  it("keeps an output whose call is missing as an x- event, not as a broken pair", () => {
    const { sessions } = convertCodex(
      fileOf("/c/r.jsonl", [
        meta(),
        userText("go"),
        item({ type: "function_call_output", call_id: "nope", output: "?" }),
      ]),
    );
    expect(typesOf(sessions[0]!.events)).toContain("x-codex-orphan-output");
    replays(sessions[0]!);
  });
});
