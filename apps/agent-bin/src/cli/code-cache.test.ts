import { readdirSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { testTempDir } from "@tapedeck/test-harness";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadCompiled } from "./code-cache";

describe("a bundle's V8 code cache", () => {
  let folder: string;
  beforeEach(() => {
    folder = testTempDir("tapedeck-code-cache-test-");
    // The cache folder goes under the temp directory (`os.tmpdir()` reads TMPDIR on each call).
    vi.stubEnv("TMPDIR", folder);
  });
  afterEach(() => vi.unstubAllEnvs());

  /** Writes `bundle.cjs` as a new file (a new install), its mtime pinned as packagers pin it. */
  const install = (version: string): URL => {
    const file = path.join(folder, "bundle.cjs");
    const temp = `${file}.new`;
    writeFileSync(temp, `exports.version = () => "${version}";\n`);
    // npm tarballs carry 1985-10-26, the Nix store 1970-01-01T00:00:01: equal across versions.
    utimesSync(temp, 1, 1);
    renameSync(temp, file);
    return pathToFileURL(file);
  };
  const run = (url: URL): string => {
    const bundle = loadCompiled(url);
    const version = (bundle.exports.version as () => string)();
    bundle.saveCache();
    return version;
  };

  it("is not used for another bundle of the same size and mtime (an upgrade that changed a version string)", () => {
    const first = install("0.1.0");
    expect(run(first)).toBe("0.1.0");
    expect(run(first)).toBe("0.1.0");
    const caches = readdirSync(folder).filter((name) => name.startsWith("tapedeck-code-cache-"));
    expect(caches).toHaveLength(1);
    // The upgrade: the same size, the same mtime, another text. The old cache ran the old code.
    const second = install("0.1.1");
    expect(run(second)).toBe("0.1.1");
    expect(run(second)).toBe("0.1.1");
  });
});
