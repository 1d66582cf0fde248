import { describe, expect, it } from "vitest";
import {
  approvalText,
  HIDDEN_CHARACTERS_WARNING,
  hasHiddenCharacters,
  toVisibleText,
} from "./visible-text";

describe("toVisibleText", () => {
  it("leaves printable text, other scripts and emoji exactly as they are", () => {
    const text = "npm test -- --grep 'héllo 世界' && echo 🚀👍🏽 | tr a-z A-Z \\x1b";
    expect(toVisibleText(text)).toEqual({
      text,
      hiddenCount: 0,
      segments: [{ kind: "text", text }],
    });
  });

  it("shows the ANSI escape and carriage return that spoofed the CLI prompt", () => {
    const command = "touch /tmp/ANSI_SPOOF_RAN\u001b[2K\rRun npm test";
    const visible = toVisibleText(command);
    expect(visible.text).toBe("touch /tmp/ANSI_SPOOF_RAN\\e[2K\\rRun npm test");
    expect(visible.hiddenCount).toBe(2);
    expect([...visible.text].every((character) => character >= " ")).toBe(true);
  });

  it("shows bidi overrides and isolates as escapes, so the order on screen is the real one", () => {
    const command = "echo safe \u202E; 00 peels #\u202C";
    expect(toVisibleText(command).text).toBe("echo safe \\u{202E}; 00 peels #\\u{202C}");
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      const visible = toVisibleText(`a${String.fromCodePoint(code)}b`);
      expect(visible.hiddenCount).toBe(1);
      expect(visible.text).toBe(`a\\u{${code.toString(16).toUpperCase()}}b`);
    }
  });

  it.each([
    ["zero-width space", "\u200b", "\\u{200B}"],
    ["zero-width joiner", "\u200d", "\\u{200D}"],
    ["byte order mark", "\ufeff", "\\u{FEFF}"],
    ["word joiner", "\u2060", "\\u{2060}"],
    ["soft hyphen", "\u00ad", "\\u{00AD}"],
    ["line separator", "\u2028", "\\u{2028}"],
    ["tag character (ASCII smuggling)", "\u{e0041}", "\\u{E0041}"],
    ["NUL", "\u0000", "\\x00"],
    ["BEL", "\u0007", "\\x07"],
    ["backspace", "\b", "\\x08"],
    ["DEL", "\u007f", "\\x7f"],
    ["C1 CSI", "\u009b", "\\x9b"],
    ["tab", "\t", "\\t"],
    ["newline", "\n", "\\n"],
    ["lone high surrogate", "\ud800", "\\u{D800}"],
    ["lone low surrogate", "\udc00", "\\u{DC00}"],
  ])("makes a %s visible", (_name, character, shown) => {
    const visible = toVisibleText(`x${character}y`);
    expect(visible.text).toBe(`x${shown}y`);
    expect(visible.hiddenCount).toBe(1);
    expect(visible.segments).toEqual([
      { kind: "text", text: "x" },
      expect.objectContaining({ kind: "hidden", text: shown }),
      { kind: "text", text: "y" },
    ]);
  });

  it("never cuts: a long command keeps its tail", () => {
    const command = `${"echo harmless ".repeat(10)}; touch /tmp/HIDDEN_TAIL`;
    expect(toVisibleText(command).text).toBe(command);
    expect(approvalText(command)).toBe(command);
  });

  it("keeps newlines and tabs in multi-line blocks when asked, and still shows the rest", () => {
    const visible = toVisibleText("line 1\n\tline 2\r\n\u001b[31mred", { keepLineBreaks: true });
    expect(visible.text).toBe("line 1\n\tline 2\\r\n\\e[31mred");
    expect(visible.hiddenCount).toBe(2);
    expect(hasHiddenCharacters("a\nb", { keepLineBreaks: true })).toBe(false);
    expect(hasHiddenCharacters("a\nb")).toBe(true);
  });

  it("names each hidden character for a tooltip", () => {
    const [, hidden] = toVisibleText("a\u202eb").segments;
    expect(hidden).toEqual({
      kind: "hidden",
      text: "\\u{202E}",
      codePoint: 0x202e,
      name: "RLO (right-to-left override)",
    });
  });
});

describe("approvalText", () => {
  it("flags text that held hidden characters", () => {
    expect(approvalText("rm -rf x\u202e")).toBe(`rm -rf x\\u{202E} [${HIDDEN_CHARACTERS_WARNING}]`);
    expect(approvalText("npm test")).toBe("npm test");
  });
});
