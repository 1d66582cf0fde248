import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EventLogCorruptError } from "./errors";
import { replayLogText, utf8Length } from "./log-text";

const fixtures = new URL("./__fixtures__/", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, fixtures), "utf8");

interface DamagedCase {
  file: string;
  code: string;
  line: number;
  sessionId: string;
  note: string;
}

const manifest = JSON.parse(read("damaged/manifest.json")) as DamagedCase[];

describe("damaged log corpus", () => {
  it("has one log for every error code", () => {
    const codes = new Set(manifest.map((entry) => entry.code));
    expect([...codes].sort()).toEqual(
      [
        "BAD_HEADER",
        "BAD_JSON",
        "BAD_REPLACE",
        "BAD_SOURCE",
        "DUPLICATE_CALL_ID",
        "DUPLICATE_OUTPUT",
        "ORPHAN_OUTPUT",
        "SCHEMA",
        "SEQ_GAP",
        "TORN_TAIL",
        "TURN_NESTING",
      ].sort(),
    );
    const files = readdirSync(new URL("damaged/", fixtures)).filter((name) =>
      name.endsWith(".jsonl"),
    );
    expect(files.sort()).toEqual(manifest.map((entry) => entry.file).sort());
  });

  it.each(manifest)("refuses $file with $code at line $line ($note)", (entry) => {
    const text = read(`damaged/${entry.file}`);
    let caught: unknown;
    try {
      replayLogText(text, { sessionId: entry.sessionId });
    } catch (error) {
      caught = error;
    }
    expect(EventLogCorruptError.isInstance(caught)).toBe(true);
    const error = caught as EventLogCorruptError;
    expect(error.code).toBe(entry.code);
    expect(error.line).toBe(entry.line);
    const lineStart =
      text
        .split("\n")
        .slice(0, entry.line - 1)
        .join("\n").length + (entry.line > 1 ? 1 : 0);
    expect(error.offset).toBe(Buffer.byteLength(text.slice(0, lineStart)));
    expect(error.message).toContain(entry.code);
    expect(error.message).toContain(`line ${entry.line}`);
  });
});

describe("valid log corpus", () => {
  it("accepts a plain log", () => {
    const session = replayLogText(read("valid/basic.jsonl"));
    expect(session.lastSeq).toBe(7);
    expect(session.openTurn).toBeNull();
    expect(session.surface.map((entry) => entry.seq)).toEqual([1, 3, 4, 5, 6]);
  });

  it("accepts chained compactions, goals and extension events", () => {
    const session = replayLogText(read("valid/chained-compaction.jsonl"));
    expect(session.currentSeqs).toEqual([1, 14]);
    expect(session.replacedBy.get(3)).toBe(11);
    expect(session.replacedBy.get(11)).toBe(14);
    expect(session.goal).toBe("Keep the README short");
    expect(session.events.some((event) => event.type === "x-editor-note")).toBe(true);
  });

  it("accepts a fork read over its parent prefix", () => {
    const parent = replayLogText(read("valid/basic.jsonl"));
    const child = replayLogText(read("valid/fork-of-basic.jsonl"), { parentEvents: parent.events });
    expect(child.header.parent).toEqual({ sessionId: parent.sessionId, seq: 5 });
    expect(child.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(child.history().at(-1)).toEqual({
      type: "message",
      role: "user",
      content: "Try another way",
    });
  });

  it("refuses a fork read without its parent", () => {
    expect(() => replayLogText(read("valid/fork-of-basic.jsonl"))).toThrow(/BAD_HEADER.*parent/);
  });
});

describe("utf8Length", () => {
  it.each(["", "ascii", "héllo", "数据库", "emoji 🎉 and 𝄞", "lone \ud800 surrogate", "\udc00x"])(
    "matches the UTF-8 encoder for %j",
    (text) => {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    },
  );
});
