/**
 * The binary's build uses only the public entries of the workspace packages: a package that wants
 * part of itself loaded lazily or left out says so in its own package.json (an `exports` subpath,
 * an `imports` condition), never by the app naming or swapping one of its files.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const app = path.dirname(import.meta.dirname);
const workspacePackages = readdirSync(path.join(app, "../../packages"));

/** The build's own sources: the tsup config and its plugins. */
const buildSources = [
  "tsup.config.ts",
  ...readdirSync(path.join(app, "build")).map((name) => path.join("build", name)),
];

describe("the binary's build", () => {
  it.each(buildSources)("%s names no file inside a workspace package", (file) => {
    const text = readFileSync(path.join(app, file), "utf8");
    expect(text).not.toMatch(/packages[\\/]/);
    for (const name of workspacePackages) {
      // A path or a path regex into the package's sources (`session-query[\\/]src`,
      // `importers/src/…`); its published specifiers (`@tapedeck/session/core`) are fine.
      expect(text, `${file} reaches into ${name}`).not.toMatch(
        new RegExp(`[\\\\/]${name}[\\\\/]src[\\\\/]|${name}\\[\\\\\\\\/\\]`),
      );
    }
  });

  it("leaves the index writer out of fresh-search.cjs through session-query's own read-only condition", () => {
    const bundle = readFileSync(path.join(app, "dist/fresh-search.cjs"), "utf8");
    expect(bundle).toContain("INDEX_WRITER_ABSENT");
    expect(bundle).not.toContain("prepareWriterStatements");
  });
});
