import { describe, expect, it } from "vitest";
import { ScanBuffer, scanBytes } from "./scan-buffer";
import { random } from "./test-random";

describe("ScanBuffer", () => {
  it("finds the first byte JSON escapes at every position of a 16-byte block, and none", () => {
    const buffer = new ScanBuffer(1024);
    expect(buffer.simd).toBe(true);
    expect(new ScanBuffer(1024, false).simd).toBe(false);
    const plain = [0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7e, 0x7f, 0x80, 0xc3, 0xff];
    for (const special of [0x00, 0x0a, 0x1f, 0x22, 0x5c]) {
      for (let from = 0; from < 20; from += 1) {
        for (let at = from; at < from + 40; at += 1) {
          for (let index = 0; index < 100; index += 1) buffer.bytes[index] = plain[index % 10]!;
          buffer.bytes[at] = special;
          expect(buffer.scan(from, from + 40)).toBe(at);
          expect(buffer.scan(from, at)).toBe(at);
          expect(buffer.scan(at + 1, from + 40)).toBe(from + 40);
        }
      }
    }
    expect(buffer.scan(5, 5)).toBe(5);
  });

  it("agrees with the byte-by-byte scan on random bytes, with and without WebAssembly", () => {
    const next = random(20261201);
    for (const simd of [true, false]) {
      const buffer = new ScanBuffer(4096, simd);
      for (let round = 0; round < 200; round += 1) {
        const density = [0, 0.001, 0.02, 0.3][round % 4]!;
        for (let index = 0; index < 4096; index += 1) {
          buffer.bytes[index] =
            next() < density
              ? [0x0a, 0x22, 0x5c, 0x01][index % 4]!
              : 0x20 + Math.floor(next() * 224);
        }
        const from = Math.floor(next() * 2048);
        const to = from + Math.floor(next() * 2048);
        for (let at = from; at < to; at = buffer.scan(at, to) + 1) {
          expect(buffer.scan(at, to)).toBe(scanBytes(buffer.bytes, at, to));
        }
      }
    }
  });

  it("keeps its bytes when it grows, and scans the grown part", () => {
    const buffer = new ScanBuffer(16);
    buffer.bytes.fill(0x61, 0, 100);
    buffer.reserve(200_000, 100);
    expect(buffer.bytes.length).toBeGreaterThanOrEqual(200_000);
    expect(buffer.bytes.subarray(0, 100).every((byte) => byte === 0x61)).toBe(true);
    buffer.bytes.fill(0x61, 100, 199_999);
    buffer.bytes[199_999] = 0x22;
    expect(buffer.scan(0, 200_000)).toBe(199_999);
  });
});
