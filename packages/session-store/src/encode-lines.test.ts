import { describe, expect, it } from "vitest";
import { encodeLines } from "./fs-util";

describe("encodeLines", () => {
  it("writes each line as UTF-8 followed by a newline, multi-byte characters included", () => {
    const lines = ["{}", '{"content":"résumé — 日本語 🎉"}', ""];
    expect(encodeLines(lines).equals(Buffer.from(lines.map((line) => `${line}\n`).join("")))).toBe(
      true,
    );
  });

  it("gives an empty buffer for no lines", () => {
    expect(encodeLines([]).length).toBe(0);
  });
});
