import { describe, expect, it } from "vitest";
import { importedRunId, importedSessionId } from "./ids";

// Ids already written into people's homes: a change here would make a re-import miss them and
// create duplicates instead of appending. These values were produced by the first release.
describe("imported ids", () => {
  const key = { tool: "claude-code", sessionId: "abc-123" } as const;

  it("maps a source session to the same session id as earlier releases did", () => {
    expect(importedSessionId(key, "2026-01-02T03:04:05.678Z")).toBe(
      "019b7ca9-8f2e-7622-b9b6-d6217b3fa8e3",
    );
    expect(importedSessionId(key, "2026-01-02T03:04:05.678Z", 2)).toBe(
      "019b7ca9-8f2e-779f-898a-bc5923d59c31",
    );
  });

  it("names a turn's run as earlier releases did", () => {
    expect(importedRunId(key, 3, "u1")).toBe("import-06d0cde9d9f8d6f5e810fb02");
  });
});
