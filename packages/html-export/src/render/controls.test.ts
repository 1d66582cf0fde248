import { describe, expect, it } from "vitest";
import { hasHiddenCharacters, parseAnsi, splitControls, stripAnsi, visibleText } from "./controls";
import { diffLines, fileChangeOf } from "./diff";
import { cutOutput } from "./tool-output";

describe("hidden characters", () => {
  it("shows bidi overrides and isolates as marks, never as themselves", () => {
    const text = visibleText("echo safe \u202E; 00 peels #\u202C \u2066x\u2069");
    expect(text).toBe("echo safe \\u{202E}; 00 peels #\\u{202C} \\u{2066}x\\u{2069}");
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  });

  it("shows C0/C1 controls as escapes and keeps newlines, tabs and CRLF", () => {
    expect(visibleText("a\u0007b\u0000c\u009Bd\te\r\nf\rg")).toBe("a\\x07b\\x00c\\x9bd\te\nf\\rg");
  });

  it("marks zero-width characters and flags text that holds any", () => {
    expect(visibleText("a\u200Bb\uFEFF")).toBe("a\\u{200B}b\\u{FEFF}");
    expect(hasHiddenCharacters("plain text\n")).toBe(false);
    expect(hasHiddenCharacters("a\u202Eb")).toBe(true);
    const marks = splitControls("x\u202Ey").filter((segment) => segment.kind === "mark");
    expect(marks).toEqual([
      { kind: "mark", text: "\\u{202E}", title: "U+202E RLO (right-to-left override)", bidi: true },
    ]);
  });
});

describe("ANSI", () => {
  it("turns SGR colours into classes and drops other escape sequences", () => {
    const runs = parseAnsi("\u001b[31mFAIL\u001b[0m x\u001b[2J\u001b[1;92mPASS\u001b[39;22m end");
    expect(runs).toEqual([
      { text: "FAIL", classes: ["ansi-fg-1"] },
      { text: " x", classes: [] },
      { text: "PASS", classes: ["ansi-fg-10", "ansi-bold"] },
      { text: " end", classes: [] },
    ]);
  });

  it("strips OSC titles and hyperlinks, keeps a lone ESC for the marks", () => {
    expect(stripAnsi("\u001b]0;title\u0007a\u001b]8;;https://x\u001b\\b\u001b")).toBe("ab\u001b");
  });
});

describe("diffs", () => {
  it("diffs an edit line by line", () => {
    expect(diffLines("a\nb\nc", "a\nB\nc")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
    ]);
  });

  it("reads edit_file and write_file arguments and ignores anything else", () => {
    const edit = fileChangeOf(
      "edit_file",
      JSON.stringify({ path: "x", oldText: "1", newText: "2" }),
    );
    expect(edit?.lines.map((line) => line.kind)).toEqual(["removed", "added"]);
    expect(
      fileChangeOf("write_file", JSON.stringify({ path: "y", content: "a\nb\n" }))?.lines,
    ).toHaveLength(2);
    expect(fileChangeOf("edit_file", "{not json")).toBeNull();
    expect(fileChangeOf("read_file", JSON.stringify({ path: "x" }))).toBeNull();
  });
});

describe("tool output", () => {
  it("cuts long output at whole lines", () => {
    const text = Array.from({ length: 50 }, (_, index) => `line ${index}`).join("\n");
    const cut = cutOutput(text, { lines: 10, characters: 10_000 });
    expect(cut.cut).toBe(true);
    expect(cut.shown.split("\n").filter(Boolean)).toHaveLength(10);
    expect(cutOutput("short", { lines: 10, characters: 100 })).toEqual({
      shown: "short",
      cut: false,
    });
  });
});
