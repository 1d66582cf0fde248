import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkpointTag, convertGeminiCheckpoint } from "./gemini-checkpoint";
import { replays, typesOf } from "./test-lines";

// The tag "coast typo" URI-encoded, as Gemini CLI names the file.
const fixture = join(
  fileURLToPath(new URL("../../__fixtures__/made/gemini/3f9a1c/", import.meta.url)),
  "checkpoint-coast%20typo.json",
);
const checkpoint = JSON.parse(readFileSync(fixture, "utf8")) as { history: unknown[] };
const created = "2025-11-20T09:05:00.000Z";

describe("convertGeminiCheckpoint", () => {
  it("maps the saved history: context, prompts, thoughts, calls answered by id or by name", () => {
    const { sessions, skipped, entries } = convertGeminiCheckpoint(checkpoint, fixture, created);
    expect(skipped).toEqual([]);
    expect(entries).toBe(12);
    const session = sessions[0]!;
    expect(checkpointTag(fixture)).toBe("coast typo");
    expect(session.key).toEqual({ tool: "gemini", sessionId: "3f9a1c/checkpoint-coast typo" });
    expect(session.cwd.endsWith("/gemini/3f9a1c")).toBe(true);
    expect(typesOf(session.events)).toEqual([
      "x-gemini-context",
      "x-gemini-context",
      "turn/start",
      "message",
      "x-gemini-thinking",
      "message",
      "function_call",
      "function_call_output",
      "message",
      "turn/end",
      "turn/start",
      "message",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "message",
    ]);
    const events = session.events;
    expect(events[3]).toMatchObject({
      role: "user",
      content: "Which files mention the lighthouse?",
    });
    expect(events[6]).toMatchObject({ callId: "search_file_content-1" });
    expect(events[7]).toMatchObject({ callId: "search_file_content-1", isError: false });
    expect(events[12]).toMatchObject({ name: "read_file" });
    expect(events[13]).toMatchObject({ callId: (events[12] as { callId: string }).callId });
    expect(events[15]).toMatchObject({
      callId: (events[14] as { callId: string }).callId,
      output: "File changed on disk since it was read.",
      isError: true,
    });
    // A checkpoint has no times: every event is timed when the file was made.
    expect(new Set(events.map((event) => event.ts))).toEqual(new Set([created]));
    replays(session);
  });

  it("converts every prefix of the history to a prefix of the whole (a tag saved again)", () => {
    const whole = convertGeminiCheckpoint(checkpoint, fixture, created).sessions[0]!.events;
    for (let count = 1; count <= checkpoint.history.length; count += 1) {
      const cut = { history: checkpoint.history.slice(0, count) };
      const events = convertGeminiCheckpoint(cut, fixture, created).sessions[0]?.events ?? [];
      expect(whole.slice(0, events.length)).toEqual(events);
    }
    // The bare array an older Gemini CLI wrote reads the same.
    const bare = convertGeminiCheckpoint(checkpoint.history, fixture, created).sessions[0]!;
    expect(bare.events).toEqual(whole);
  });

  it("refuses a document that is not a checkpoint, in one record, and skips a content that is not one", () => {
    const refused = convertGeminiCheckpoint({ messages: [] }, "/x/checkpoint-a.json", created);
    expect(refused.sessions).toEqual([]);
    expect(refused.skipped[0]?.reason).toContain("not a Gemini CLI checkpoint");
    const damaged = convertGeminiCheckpoint(
      { history: [...checkpoint.history.slice(2, 4), 42] },
      fixture,
      created,
    );
    expect(damaged.skipped.map((skip) => skip.reason)).toEqual(["content 3: not a Content"]);
    expect(damaged.sessions).toHaveLength(1);
  });
});
