/**
 * The store owns its folder (issue #12): no other package, app, test or bench lists the sessions
 * folder; they ask the store (`scan()`, `sessionIds()`, `entry()`, `openLogReader()`). This test
 * reads the sources of the whole repository and fails on a directory listing of that folder.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const storePackage = path.join(root, "packages/session-store");
/** Installed, built or generated: not our sources (hidden folders too: `.git`, `.turbo`, …). */
const skippedFolders = new Set(["node_modules", "dist", "coverage"]);
const listingCall = /\b(?:readdirSync|readdir|opendirSync|opendir|globSync|glob)\s*\(/g;
/** An expression naming the sessions folder: a `"sessions"` path segment or `sessionsDir`. */
const sessionsFolder = /["'`]sessions["'`]|["'`/]sessions\/|\bsessionsDir\b/;

/** Text of the call's arguments, from after `(` to its matching `)`. */
function argumentsOf(text: string, from: number): string {
  let depth = 1;
  let index = from;
  for (; index < text.length && depth > 0; index += 1) {
    if (text[index] === "(") depth += 1;
    else if (text[index] === ")") depth -= 1;
  }
  return text.slice(from, index - 1);
}

/**
 * Lines of `text` that list the sessions folder: a listing call whose argument names the folder,
 * directly or through a variable declared in the same file.
 */
export function sessionsFolderListings(text: string): number[] {
  const found: number[] = [];
  for (const match of text.matchAll(listingCall)) {
    const argument = argumentsOf(text, match.index + match[0].length);
    const names = argument.match(/[A-Za-z_$][\w$]*/g) ?? [];
    const viaVariable = names.some((name) => {
      const declaration = new RegExp(
        `(?:const|let|var)\\s+${name.replaceAll("$", "\\$")}\\s*=([^;]*)`,
      ).exec(text);
      return declaration !== null && sessionsFolder.test(declaration[1] ?? "");
    });
    if (sessionsFolder.test(argument) || viaVariable) {
      found.push(text.slice(0, match.index).split("\n").length);
    }
  }
  return found;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      return skippedFolders.has(entry.name) || entry.name.startsWith(".") || full === storePackage
        ? []
        : sourceFiles(full);
    }
    return /\.(?:[cm]?[jt]sx?)$/.test(entry.name) ? [full] : [];
  });
}

/**
 * A production module (a package's or app's `src/`, not a test or test helper) outside the store
 * that asks for a log's path or the sessions folder: it is about to build a path into the folder
 * (write a log beside the store, stat it) instead of asking the store (`adoptLog`, `hasLog`,
 * `entry`, `openLogReader`).
 */
const logPathUse = /\.pathOf\s*\(|\bsessionsDir\b/g;

export function logPathUses(text: string): number[] {
  return [...text.matchAll(logPathUse)].map(
    (match) => text.slice(0, match.index).split("\n").length,
  );
}

/** Production sources: under a `src/` folder, not a test, not a test-support package. */
function isProductionSource(file: string): boolean {
  const relative = path.relative(root, file);
  return (
    /^(?:packages|apps)\/[^/]+\/src\//.test(relative) &&
    !/\.test\.[cm]?[jt]sx?$/.test(relative) &&
    !relative.startsWith("packages/test-support/")
  );
}

describe("the store owns its folder", () => {
  it("recognises a listing of the sessions folder, direct or through a variable", () => {
    expect(sessionsFolderListings('fs.readdirSync(join(home, "sessions"))')).toEqual([1]);
    expect(
      sessionsFolderListings(
        'const dir = join(home, "sessions");\nfor (const n of readdirSync(dir)) n;',
      ),
    ).toEqual([2]);
    expect(sessionsFolderListings("await readdir(box.store.sessionsDir)")).toEqual([1]);
    expect(sessionsFolderListings('readdirSync(path.join(home, "trash"))')).toEqual([]);
    expect(sessionsFolderListings("tapedeck sessions list; readdir(dist)")).toEqual([]);
  });

  it("no package but the store lists the sessions folder (tests and benches included)", () => {
    const files = sourceFiles(root);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      sessionsFolderListings(readFileSync(file, "utf8")).map(
        (line) => `${path.relative(root, file)}:${line}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("no production module but the store asks for a log's path or the sessions folder", () => {
    expect(logPathUses("existsSync(store.pathOf(id));\nmkdirSync(store.sessionsDir)")).toEqual([
      1, 2,
    ]);
    expect(logPathUses("store.hasLog(id); store.entry(id)")).toEqual([]);
    const files = sourceFiles(root).filter(isProductionSource);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      logPathUses(readFileSync(file, "utf8")).map((line) => `${path.relative(root, file)}:${line}`),
    );
    expect(offenders).toEqual([]);
  });
});
