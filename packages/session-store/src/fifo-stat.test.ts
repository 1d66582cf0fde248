import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDirectory } from "../test/helpers";
import { ChangeJournal, JOURNAL_FILE } from "./change-journal";
import { LogFolder } from "./log-folder";

/**
 * Node's `realpathSync` (which `require` uses) reads the file type of the last plain synchronous
 * stat from a buffer it shares with `fs.statSync` and `fs.fstatSync`: after a FIFO's it stopped
 * resolving links, and the CLI's next `require("better-sqlite3")` (a pnpm link) failed with
 * "Cannot find module 'bindings'" on a home whose journal was a FIFO. The store's stats of files
 * that may be FIFOs must leave that buffer alone.
 */
describe("a FIFO in the journal's or a log's place", () => {
  let temp: ReturnType<typeof tempDirectory>;
  /** Resolves `linked/<file>` as a package that a link in `node_modules` points to. */
  let resolveLinked: (file: string) => string;
  let realPackage: string;

  beforeEach(() => {
    temp = tempDirectory();
    // A known start: the test before left the buffer as its FIFO's (its folder's removal).
    statSync(temp.root);
    realPackage = join(temp.root, "store", "linked");
    mkdirSync(realPackage, { recursive: true });
    for (const file of ["a.js", "b.js", "c.js"]) writeFileSync(join(realPackage, file), "");
    mkdirSync(join(temp.root, "app", "node_modules"), { recursive: true });
    symlinkSync(realPackage, join(temp.root, "app", "node_modules", "linked"));
    const require = createRequire(join(temp.root, "app", "main.js"));
    resolveLinked = (file) => require.resolve(`linked/${file}`);
    realPackage = realpathSync(realPackage);
    // The first resolution puts the link's folders in Node's path cache, as a CLI's start does.
    expect(resolveLinked("a.js")).toBe(join(realPackage, "a.js"));
  });
  afterEach(() => temp.cleanup());

  it("reading a journal that is a FIFO leaves require resolving links", () => {
    mkdirSync(temp.home, { recursive: true });
    const journal = new ChangeJournal(temp.home);
    const { cursor } = journal.readSince(undefined);
    rmSync(join(temp.home, JOURNAL_FILE));
    execFileSync("mkfifo", [join(temp.home, JOURNAL_FILE)]);
    expect(journal.readSince(cursor ?? undefined)).toMatchObject({ ok: false, reason: "damaged" });
    expect(resolveLinked("b.js")).toBe(join(realPackage, "b.js"));
  });

  it("opening a log that is a FIFO leaves require resolving links", () => {
    const folder = new LogFolder(temp.home);
    const sessionId = uuidv7();
    mkdirSync(join(temp.home, "sessions"), { recursive: true });
    execFileSync("mkfifo", [join(temp.home, "sessions", `${sessionId}.jsonl`)]);
    expect(folder.openLogReader(sessionId)).toBeNull();
    expect(resolveLinked("c.js")).toBe(join(realPackage, "c.js"));
  });
});
