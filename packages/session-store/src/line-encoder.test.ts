import { describe, expect, it } from "vitest";
import { LineEncoder, scratchEncoder } from "./line-encoder";
import { random } from "./test-random";

/** What the store wrote before the encoder: JSON.stringify, then UTF-8. */
const expected = (values: readonly unknown[]) =>
  Buffer.from(values.map((value) => `${JSON.stringify(value)}\n`).join(""));

/**
 * Encoded with the SIMD scan; with `both`, checked against the scan in JavaScript (where there is
 * no WebAssembly) too.
 */
function encode(values: readonly unknown[], both = false): Buffer {
  const encoded = (both ? [true, false] : [true]).map((simd) => {
    const encoder = new LineEncoder(16, simd);
    for (const value of values) encoder.json(value);
    return Buffer.from(encoder.bytes());
  });
  if (both) expect(encoded[0]!.equals(encoded[1]!)).toBe(true);
  return encoded[0]!;
}

/** Characters JSON treats apart, and neighbours of them. */
const special = [
  ...'\u0000\u0001\b\t\n\u000b\f\r\u001f "\\/\u007f\u0080\u00ff\u0100é—日\u2028\u2029\ufeff\uffff',
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "😀",
];

function randomString(next: () => number, length: number, specials: number): string {
  let text = "";
  for (let index = 0; index < length; index += 1) {
    text +=
      next() < specials
        ? special[Math.floor(next() * special.length)]
        : String.fromCharCode(0x21 + Math.floor(next() * 94));
  }
  return text;
}

describe("LineEncoder", () => {
  it("writes exactly JSON.stringify's bytes for every special character, alone and inside long text", () => {
    const values: unknown[] = [];
    const long = "x".repeat(70);
    for (const character of special) {
      values.push({ text: character });
      // Every position modulo 4 (the scan reads words), at the start, middle and end.
      for (let offset = 0; offset < 8; offset += 1) {
        values.push({ text: `${long.slice(offset)}${character}${long}` });
        values.push({ text: `${character}${long.slice(offset)}` });
        values.push({ text: `${long.slice(offset)}${character}` });
      }
    }
    expect(encode(values, true).equals(expected(values))).toBe(true);
  });

  it("writes exactly JSON.stringify's bytes for random strings of every length", () => {
    const next = random(20261201);
    const values: unknown[] = [];
    for (let index = 0; index < 3000; index += 1) {
      const length = Math.floor(next() * (index % 10 === 0 ? 3000 : 120));
      const specials = [0, 0.001, 0.05, 0.5][index % 4]!;
      values.push({ seq: index, text: randomString(next, length, specials), n: index / 7 });
    }
    expect(encode(values, true).equals(expected(values))).toBe(true);
  });

  it("writes exactly JSON.stringify's bytes at the in-place special limit (one byte in 16) and buffer sizes", () => {
    const values: unknown[] = [];
    for (const length of [48, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537]) {
      const limit = length >> 4;
      for (const count of [1, limit - 1, limit, limit + 1]) {
        for (const special of ["\n", "\u001f", '"', "\\"]) {
          // Spread evenly (the last at the very end), or in pairs 1 to 3 bytes apart.
          for (const gap of [0, 1, 2, 3]) {
            const text = Array.from({ length }, () => "x");
            for (let index = 1; index <= count; index += 1) {
              const at = Math.floor((index * length) / count) - 1;
              text[gap > 0 && index % 2 === 0 ? at - 16 + gap : at] = special;
            }
            values.push({ t: text.join(""), [`k${gap}`]: `${special}${text.join("")}é` });
          }
        }
      }
    }
    expect(encode(values).equals(expected(values))).toBe(true);
    // ≈ 3 s idle; 5 s and more on a loaded machine (it encodes ≈ 80 MB twice).
  }, 30_000);

  it("writes members in JSON.stringify's order and leaves out what it leaves out", () => {
    const nullPrototype = Object.assign(Object.create(null) as object, { b: 1, a: "two" });
    const values: unknown[] = [
      { b: 1, a: 2, 10: "ten", 2: "two", 'key with "quotes"\n': "v", é: "é" },
      { u: undefined, f: () => 1, s: Symbol("s"), kept: true, off: false, nothing: null },
      { numbers: [0, -0, 1.5, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY] },
      {
        zero: -0,
        nan: Number.NaN,
        infinity: Number.NEGATIVE_INFINITY,
        big: 2 ** 60,
        small: 5e-324,
      },
      { nested: { a: [1, "x\n", { b: null }], c: undefined }, list: [undefined, () => 1] },
      { date: new Date(Date.UTC(2026, 0, 2)), boxed: new String("boxed"), number: new Number(3) },
      { map: new Map([[1, 2]]), set: new Set([1]), regex: /x/g },
      nullPrototype,
      {},
      [1, "two", { three: 3 }],
      "a bare string",
      42,
      null,
      new Date(0),
      new (class Point {
        x = 1;
        y = "y";
      })(),
      { toJSON: () => ({ replaced: true }) },
      { member: { toJSON: (key: string) => `key was ${key}` } },
    ];
    expect(encode(values).equals(expected(values))).toBe(true);
  });

  it("leaves out members a prototype adds, as JSON.stringify does (own members only)", () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.inherited = "not own";
    try {
      const values = [
        { own: 1, text: "x".repeat(60) },
        { 2: "two", 1: "one", b: "b", a: "a" },
      ];
      expect(encode(values).equals(expected(values))).toBe(true);
      expect(encode(values).includes("inherited")).toBe(false);
    } finally {
      delete prototype.inherited;
    }
  });

  it("throws what JSON.stringify throws (a BigInt, a cycle) and refuses what is no JSON line", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => new LineEncoder().json({ big: 1n })).toThrow(TypeError);
    expect(() => new LineEncoder().json({ nested: cycle })).toThrow(TypeError);
    expect(() => new LineEncoder().json(undefined)).toThrow(TypeError);
  });

  it("keeps lines apart as it grows, and a reset starts over", () => {
    const encoder = new LineEncoder(8);
    const values = Array.from({ length: 200 }, (_, index) => ({
      index,
      text: "word ".repeat(index),
    }));
    encoder.text('{"type":"session"}');
    for (const value of values) encoder.json(value);
    expect(encoder.lineCount).toBe(201);
    expect(encoder.line(0).toString()).toBe('{"type":"session"}\n');
    expect(encoder.line(200).equals(expected([values[199]]))).toBe(true);
    expect(
      encoder
        .bytes()
        .equals(Buffer.concat([Buffer.from('{"type":"session"}\n'), expected(values)])),
    ).toBe(true);
    encoder.reset();
    encoder.json({ again: 1 });
    expect(encoder.bytes().toString()).toBe('{"again":1}\n');
  });

  it("hands out one emptied scratch encoder per thread", () => {
    const first = scratchEncoder();
    first.json({ a: 1 });
    const second = scratchEncoder();
    expect(second).toBe(first);
    expect(second.length).toBe(0);
  });
});
