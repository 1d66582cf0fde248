import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { convertGemini } from "./gemini";
import { replays, typesOf } from "./test-lines";

const fixture = fileURLToPath(
  new URL(
    "../../__fixtures__/made/gemini/3f9a1c/chats/session-2025-11-20T09-00-b2c4d6e8.json",
    import.meta.url,
  ),
);
const chat = JSON.parse(readFileSync(fixture, "utf8")) as { messages: unknown[] };

describe("convertGemini", () => {
  it("maps prompts, thoughts, text, tool calls with their results and info messages into turns", () => {
    const { sessions, skipped, entries } = convertGemini(chat, fixture);
    expect(skipped).toEqual([]);
    expect(entries).toBe(6);
    const session = sessions[0]!;
    expect(session.key).toEqual({
      tool: "gemini",
      sessionId: "b2c4d6e8-1a3b-4c5d-8e7f-9a0b1c2d3e4f",
    });
    expect(session.createdAt).toBe("2025-11-20T09:00:00.000Z");
    expect(session.cwd.endsWith("/gemini/3f9a1c")).toBe(true);
    expect(typesOf(session.events)).toEqual([
      "turn/start",
      "message",
      "x-gemini-thinking",
      "message",
      "function_call",
      "function_call_output",
      "message",
      "x-gemini-info",
      "turn/end",
      "turn/start",
      "message",
      "message",
    ]);
    expect(session.events[4]).toMatchObject({
      callId: "search_file_content-1",
      name: "search_file_content",
      arguments: '{"pattern":"lighthouse"}',
    });
    expect(session.events[5]).toMatchObject({
      output: "docs/coast.md:3: the lighthouse keeper",
      isError: false,
    });
    expect(session.events[10]).toMatchObject({ role: "user", content: "Thanks, summarise it." });
    // The reply names its model after the prompt: later turns carry it.
    expect(session.events[9]).toMatchObject({ model: "google:gemini-2.5-pro" });
    replays(session);
  });

  it("converts every message prefix (and a tool still running) to a prefix of the whole chat", () => {
    const whole = convertGemini(chat, fixture).sessions[0]!.events;
    const running = structuredClone(chat) as { messages: Record<string, unknown>[] };
    delete (running.messages[1]!.toolCalls as Record<string, unknown>[])[0]!.result;
    const cuts = [
      ...chat.messages.map((_, count) => ({
        ...chat,
        messages: chat.messages.slice(0, count + 1),
      })),
      { ...running, messages: running.messages.slice(0, 2) },
    ];
    for (const cut of cuts) {
      const events = convertGemini(cut, fixture).sessions[0]?.events ?? [];
      expect(whole.slice(0, events.length)).toEqual(events);
    }
  });

  it("refuses a document that is not a saved chat, in one record", () => {
    const { sessions, skipped } = convertGemini({ info: {} }, "/x.json");
    expect(sessions).toEqual([]);
    expect(skipped[0]?.reason).toContain("not a Gemini CLI chat");
  });
});
