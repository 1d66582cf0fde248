import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { decompress } from "fzstd";
import { describe, expect, it } from "vitest";
import { readSourceBytes } from "./lines";
import { MAX_DECOMPRESSED_BYTES, SourceTooLargeError, zstdSizeBound } from "./zstd-size";

/**
 * Two frames written by the zstd CLI 1.5 (`zstd --check` of 51,870 bytes of JSON lines, then 200
 * of them without a checksum), concatenated: 52,070 bytes once decompressed.
 */
const realFrames = Buffer.from(
  "KLUv/WSeyd0iAGbaRB5ga9IGw5bYLfxuJKBSw5Ibhqky2d3dO7njIAJRgYpTADQAMwCLwHIMMo1EsFA4DKJQJIRjEMccjrKQlAFFgXEkBBjEUY6kHEjBMYfTSImCAmkcczjpIJEkaWEQxyCBKBgSjGMOZ5GUhIGUHAgjSY1jECcxGJTTELqaeFY3ytXEs7oRriae1Y1uNfGsbmSriWd1o1pNPKsbfTXxrG7vrqpmJiLenZlV1X/bAEv3auJZ3auJZ3WvJp7VvZp4Vvdq4lndq4lnda8mntW9mnhW92riWd3Iq4lndaNdTTyrGwUAyyKwnNXEs7pXE8/qXk08q3s18azu1cSzulcTz+peTTyrezXxrO7VxLO6VxPP6v5q4lkFg4eoMtWV6rFsBkKPhCSW8hJIEBhBwAKjIzCbIOET4T/xA9GhzgHqg6xDXYcfh+sOOg99doeYW0lAfYgh2wHHhyYHqg6iD/09PDisevCPD7GwJD71oYYxh5sHMw81HX4cXD34P6jlsDc8xNxJgtSHDBcdMjngOkh/6OXw5XDr4OuhZnSIhStxqg8Zsj9gfUjkAPtg+qDfw4ODtQd/8yHmShKmPtQwcnjzYPZQs8OPw7UH/4eaHPbBQyw8iUt9yHCpQ5IDTgfph14OPg63DnwfapoOMbeSQPUhQ/YDrg9JDnAfTB/6e3hwWPXgHx9iYUl86kMNYw43D2Yeajr8OLh68H9Qy2FveIi5kwSpDxkuOmRywHWQ/tDL4cvh1sHXQ83oEAtX4qQ+VOj+gPUhkQPsg+mDfg8PDtYe/M2HmCtJmPNQw8jhzYPZQ80OPw7XHvwfanLYBw+x8CQu2CHDpQ5JDjgdpB96Ofg43DrwfahpOsTcSgIlhwzZD7g+JDnAfTB96O/hwWHVg398iIUl8dENNYw53DyYeajp8OPg6sH/QS2HveEh5k4SZDVkuOiQyQHXQfpDL4cvh1sHXw81o0MsXIkTZ8iQ/QHrQyIH2AfTB/0eHhysPfibDzFXkjCNoYaRw5sHs4eaHX4crj34P9TksA8eYuFJXPxChksdkhxwOkg/9HLwcbh14PtQ03SIuUUS0r2FBtMPXh8EHKB9aHqg+yDp0NXDP3iIhYc4gpWVBSk0qLfBwho2wqCCBj02WMhgJwxaMZAOeyGMhgFtsFDDjDCo0KCODRYy7AmDVgzSYV4IoyEgGyzUsDEMKjTosYGFDDthoBWDdNgLw2gIaIMJNWyEQQoNemywIcNOGLTCIB32QhgaAtpgYQ0bYVChgR4bLGSwEwatGEqHvRBGQ4A2WKhhRhhUaNDHBgsZdoJBKwbpMC+E0RCwDRZq2AgDFRr02MBChp0w1IpBOuyFYDQEtMGEGjbCoIUGPTZYkGEnDFphkA57IUwNAW2wUIONMKjQQI8NFjLcCYNWDIPLyQgLpTTsTWY4/mMIfdcQ/M4Q/L0h/K4h+M0g/L8h+OU+deVAPC10SiOcmnZJwOGsTLW7AjgUTSut32zJKyi1L/0AWG0DAMJGFRiQqTnYqkgWbpGN6y/2e38z26kmp8nLBwSA1gbNDVSdgNgVzznCLS5xJp5GsnSHoMV5z8OCS6y+2EHlEv9g1jpqscHgUZjkEqPnYXwdpnXlFj8p0osHACtTwApbIVOEK0KdasOtmiqC1RM=",
  "base64",
);

/** One frame of `count` RLE blocks of 128 KiB: 4 bytes each, 128 KiB each decompressed. */
function rleBomb(count: number): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58]); // no content size, window 128 MiB
  const blocks: Buffer[] = [header];
  for (let index = 0; index < count; index += 1) {
    const last = index === count - 1 ? 1 : 0;
    const value = ((128 * 1024) << 3) | (1 << 1) | last;
    blocks.push(Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, 0x30]));
  }
  return Buffer.concat(blocks);
}

describe("zstdSizeBound", () => {
  it("bounds real frames (checksum, two frames) at least at what they decompress to", () => {
    const size = decompress(realFrames).length;
    expect(size).toBe(52_070);
    const bound = zstdSizeBound(realFrames)!;
    expect(bound).toBeGreaterThanOrEqual(size);
    expect(bound).toBeLessThan(size + 2 * 128 * 1024);
  });

  it("sums RLE blocks exactly, and gives up on bytes that are not zstd", () => {
    expect(zstdSizeBound(rleBomb(3))).toBe(3 * 128 * 1024);
    expect(decompress(rleBomb(3)).length).toBe(3 * 128 * 1024);
    expect(zstdSizeBound(Buffer.from("not zstd at all"))).toBeUndefined();
    expect(zstdSizeBound(realFrames.subarray(0, 20))).toBeUndefined();
  });
});

describe("readSourceBytes of a .zst", () => {
  it("refuses a file that would decompress past the limit before decompressing it (it took 6 GB for 3 GB of zeros)", () => {
    const dir = testTempDir("zstd-bomb-");
    mkdirSync(dir, { recursive: true });
    const bomb = join(dir, "rollout-bomb.jsonl.zst");
    const blocks = MAX_DECOMPRESSED_BYTES / (128 * 1024) + 1;
    writeFileSync(bomb, rleBomb(blocks));
    const started = performance.now();
    expect(() => readSourceBytes(bomb)).toThrow(SourceTooLargeError);
    expect(() => readSourceBytes(bomb)).toThrow(
      /decompresses to up to 1025 MiB, more than the 1024 MiB/,
    );
    // Decompressing 1 GiB takes seconds; reading the headers of 8,193 blocks does not.
    expect(performance.now() - started).toBeLessThan(1000);
    const real = join(dir, "rollout-real.jsonl.zst");
    writeFileSync(real, realFrames);
    expect(readSourceBytes(real).length).toBe(52_070);
  });
});
