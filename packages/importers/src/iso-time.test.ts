import { describe, expect, it } from "vitest";
import { isoTime } from "./draft-builder";
import { isoOfMillis } from "./iso-time";

describe("isoOfMillis", () => {
  it("writes what Date#toISOString writes, on boundaries and 200,000 spread times", () => {
    const times = [
      0,
      1,
      999,
      Date.UTC(1972, 1, 29),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      -1,
      -86_400_000 * 400,
      1.5,
      1_767_225_600_000.25,
    ];
    let state = 12345;
    for (let index = 0; index < 200_000; index += 1) {
      state = (Math.imul(state, 1_103_515_245) + 12345) >>> 0;
      const spread = index % 2 === 0 ? 253_402_300_799_999 : 4_102_444_800_000;
      times.push(Math.floor((state / 2 ** 32) * spread) + (index % 1000));
    }
    const wrong = times.filter((time) => isoOfMillis(time) !== new Date(time).toISOString());
    expect(wrong).toEqual([]);
  });

  it("throws for a time Date cannot hold, as toISOString does", () => {
    expect(() => isoOfMillis(1e20)).toThrow(RangeError);
  });
});

describe("isoTime", () => {
  it("is undefined for a number of seconds or milliseconds outside Date's range, never a throw", () => {
    // A source's garbage timestamp must cost its entry's time, not the whole file (issue #14).
    for (const value of [1e20, -1e20, 8.64e15 + 1, Number.MAX_VALUE, -Number.MAX_VALUE]) {
      expect(isoTime(value)).toBeUndefined();
    }
    expect(isoTime(8.64e15)).toBe(new Date(8.64e15).toISOString());
    expect(isoTime(1_766_536_380)).toBe("2025-12-24T00:33:00.000Z");
    expect(isoTime(1_766_536_380_000)).toBe("2025-12-24T00:33:00.000Z");
  });
});
