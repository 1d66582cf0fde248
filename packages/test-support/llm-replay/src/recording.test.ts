import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLogCorruptError } from "@tapedeck/session";
import { afterAll, describe, expect, it } from "vitest";
import { RecordingError } from "./errors";
import { loadRecording } from "./recording";
import { scriptedRecording } from "./scripted-recording";

const dir = mkdtempSync(join(tmpdir(), "llm-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parent = scriptedRecording()
  .user("Hi")
  .text("Hello!")
  .end()
  .user("Bye")
  .text("Bye!")
  .end()
  .build();

describe("loadRecording", () => {
  it("reads the same calls from a path, from JSONL text and from events", () => {
    const path = parent.write(join(dir, `${parent.header.sessionId}.jsonl`));
    const fromPath = loadRecording(path);
    expect(fromPath.path).toBe(path);
    expect(
      fromPath.calls.map((call) => [call.index, call.line, call.chunks.length, call.outcome.type]),
    ).toEqual([
      [0, 4, 1, "response"],
      [1, 11, 1, "response"],
    ]);
    const strip = (recording: ReturnType<typeof loadRecording>) => ({
      ...recording,
      path: undefined,
    });
    expect(strip(loadRecording(parent.jsonl()))).toEqual(strip(fromPath));
    expect(strip(loadRecording({ header: parent.header, events: parent.events }))).toEqual(
      strip(fromPath),
    );
  });

  it("refuses a log that breaks an invariant, before anything is replayed", () => {
    const lines = parent.jsonl().split("\n");
    lines.splice(3, 1);
    expect(() => loadRecording(lines.join("\n"))).toThrow(EventLogCorruptError);
    expect(() => loadRecording(lines.join("\n"))).toThrow(
      /SEQ_GAP at .*line 4, byte \d+, seq 4: expected seq 3/,
    );
    expect(() => loadRecording(parent.jsonl().slice(0, -1))).toThrow(/TORN_TAIL/);
  });

  it("reads a fork's calls with its parent found next to it, only the fork's own calls", () => {
    parent.write(join(dir, `${parent.header.sessionId}.jsonl`));
    const fork = scriptedRecording({ parent: { log: parent, atSeq: 7 } })
      .user("Again")
      .text("Again!")
      .end()
      .build();
    const path = fork.write(join(dir, `${fork.header.sessionId}.jsonl`));
    const recording = loadRecording(path);
    expect(recording.calls).toHaveLength(1);
    expect(recording.calls[0]!.line).toBe(4);
    expect(
      recording.calls[0]!.input.map((item) => (item.type === "message" ? item.content : item.type)),
    ).toEqual(["Hi", "Hello!", "Again"]);
  });

  it("says where to put a fork's parent when it is missing", () => {
    const fork = scriptedRecording({ parent: { log: parent } })
      .user("x")
      .end()
      .build();
    expect(() => loadRecording(fork.jsonl())).toThrow(RecordingError);
    expect(() => loadRecording(fork.jsonl())).toThrow(
      /is a fork of session .* pass the parent log as options.parent/,
    );
    expect(() => loadRecording(join(dir, "missing.jsonl"))).toThrow(/Cannot read the recording/);
  });
});
