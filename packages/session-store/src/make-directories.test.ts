import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDirectory } from "../test/helpers";
import { makeDirectories } from "./fs-util";

describe("makeDirectories", () => {
  let temp: ReturnType<typeof tempDirectory>;
  beforeEach(() => {
    temp = tempDirectory();
  });
  afterEach(() => temp.cleanup());

  it("makes every missing level private, and accepts a folder already there", () => {
    const deep = join(temp.root, "a", "b", "c");
    makeDirectories(deep);
    makeDirectories(deep);
    for (const folder of [join(temp.root, "a"), deep]) {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    }
  });

  it("throws EEXIST for a file in the way, and ENOENT under a folder that refuses children", () => {
    const file = join(temp.root, "file");
    writeFileSync(file, "");
    expect(() => makeDirectories(file)).toThrow(expect.objectContaining({ code: "EEXIST" }));
    // Node's recursive mkdir loops forever here.
    expect(() => makeDirectories("/proc/tapedeck-no-such-folder/home")).toThrow(
      expect.objectContaining({ code: "ENOENT", path: "/proc/tapedeck-no-such-folder" }),
    );
  });
});
