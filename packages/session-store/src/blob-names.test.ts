import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { blobsNamedIn } from "./storage-kinds";

const hash = (index: number) => createHash("sha256").update(String(index)).digest("hex");

describe("blob names in a log, read in chunks", () => {
  it("finds every name whatever the chunk size, a name split between chunks included", () => {
    const names = Array.from({ length: 12 }, (_, index) => hash(index));
    // Names at shifting offsets, with near misses: an upper-case hash, a short one, no closing quote.
    const text = [
      ...names.map((name, index) => `${"x".repeat(index * 7)}{"blob":"${name}","bytes":1}\n`),
      `{"blob":"${hash(99).toUpperCase()}"}\n{"blob":"${hash(98).slice(0, 60)}"}\n{"blob":"${hash(97)}x\n`,
    ].join("");
    const bytes = Buffer.from(text);
    for (const chunkSize of [1, 7, 8, 9, 72, 73, 74, 100, 1 << 20]) {
      const found = new Set<string>();
      blobsNamedIn(
        (target, length, position) => bytes.copy(target, 0, position, position + length),
        bytes.length,
        found,
        chunkSize,
      );
      expect([...found].sort(), `chunk ${chunkSize}`).toEqual([...names].sort());
    }
  });
});
