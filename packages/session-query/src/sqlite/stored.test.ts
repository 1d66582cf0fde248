import { describe, expect, it } from "vitest";
import { parseIndexedEvent } from "./stored";

describe("parseIndexedEvent (an indexed line read back without the log's schemas)", () => {
  it("returns the event the index holds at that seq", () => {
    const line = JSON.stringify({
      seq: 7,
      ts: "2026-01-01T00:00:00.000Z",
      type: "message",
      role: "user",
      content: "hi",
    });
    expect(parseIndexedEvent(line, 7)).toMatchObject({ seq: 7, content: "hi" });
  });

  it("drops a line that is not that event: another seq, not JSON, not an object, no type", () => {
    const message = {
      seq: 7,
      ts: "2026-01-01T00:00:00.000Z",
      type: "message",
      role: "user",
      content: "hi",
    };
    expect(parseIndexedEvent(JSON.stringify(message), 8)).toBeNull();
    expect(parseIndexedEvent('{"seq":7,"type":"mess', 7)).toBeNull();
    expect(parseIndexedEvent("[7]", 7)).toBeNull();
    expect(parseIndexedEvent("null", 7)).toBeNull();
    expect(parseIndexedEvent(JSON.stringify({ ...message, type: 3 }), 7)).toBeNull();
  });

  it("drops a line edited in place whose shown text is no longer text", () => {
    for (const edited of [
      { seq: 7, type: "message", role: "user", content: 1234 },
      { seq: 7, type: "function_call_output", callId: "c", output: { a: 1 } },
      { seq: 7, type: "error", message: null },
    ]) {
      expect(parseIndexedEvent(JSON.stringify(edited), 7)).toBeNull();
    }
  });
});
