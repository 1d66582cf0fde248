import { describe, expect, it } from "vitest";
import { EventLogCorruptError } from "./errors";
import { parseEventLine } from "./parse-line";

const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const ref = { blob: hash, bytes: 4, mediaType: "text/plain; charset=utf-8", preview: "te" };
const common = { seq: 2, ts: "2026-01-01T00:00:00.000Z", runId: "r1" };

describe("blob references (optional version-1 fields)", () => {
  it("a function_call_output with outputBlob parses and keeps the reference", () => {
    const event = parseEventLine(
      JSON.stringify({
        ...common,
        type: "function_call_output",
        callId: "c1",
        output: "te",
        isError: false,
        outputBlob: ref,
        attachments: [{ ...ref, mediaType: "image/png", preview: "image/png, 4 bytes" }],
      }),
    );
    expect(event).toMatchObject({ output: "te", outputBlob: ref });
  });

  it("a reference whose blob is not a sha256 in lowercase hex is a SCHEMA error", () => {
    const line = JSON.stringify({
      ...common,
      type: "message",
      role: "user",
      content: "te",
      contentBlob: { ...ref, blob: hash.toUpperCase() },
    });
    expect(() => parseEventLine(line)).toThrow(EventLogCorruptError);
    try {
      parseEventLine(line);
    } catch (error) {
      expect((error as EventLogCorruptError).code).toBe("SCHEMA");
    }
  });
});
