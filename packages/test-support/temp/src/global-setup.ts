/**
 * vitest `globalSetup` (listed once, in the root `vitest.config.ts`): the run gets a temp
 * directory of its own (`TMPDIR`, so `os.tmpdir()` in every worker, and in what it spawns with
 * its environment, points into it) and, when the run ends, fails it if anything is left there, naming what leaked. The
 * folder is removed either way, so a leaking test leaves nothing on the machine.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processExists } from "./process";

/** `TAPEDECK_TEST_TMP_GUARD=off` runs without the guard (to look at what a test leaves). */
export const TMP_GUARD_ENV = "TAPEDECK_TEST_TMP_GUARD";

/**
 * Caches that tools keep in the temp directory on purpose, not left behind by a test: tsx (which
 * tests spawn to run TypeScript) keeps its compile cache in `tsx-<uid>`, the `tapedeck` binary the
 * V8 code cache of its search bundle in `tapedeck-code-cache-<uid>` (`apps/agent-bin`).
 */
const toolCaches: readonly RegExp[] = [/^tsx-\d+$/, /^tapedeck-code-cache-(\d+|user)$/];

/** What a run left in its temp directory: every entry but the tools' own caches. */
export function leftovers(entries: readonly string[]): string[] {
  return entries.filter((entry) => !toolCaches.some((cache) => cache.test(entry)));
}

/** The sentence naming what a run left in its temp directory; `undefined` when it is empty. */
export function leftoversMessage(entries: readonly string[], limit = 20): string | undefined {
  if (entries.length === 0) return undefined;
  const sorted = [...entries].sort();
  const shown = sorted.slice(0, limit).join(", ");
  const more = sorted.length > limit ? `, and ${sorted.length - limit} more` : "";
  return (
    `The tests left ${sorted.length} temp ${sorted.length === 1 ? "entry" : "entries"} behind: ` +
    `${shown}${more}. Create temp folders with testTempDir()/testWorkspace() ` +
    "(@tapedeck/test-temp) or remove them in afterEach/afterAll."
  );
}

const RUN_DIR = /^tapedeck-test-run-(\d+)-/;

/**
 * Removes the run folders (`tapedeck-test-run-<pid>-…`) of runs whose process is gone: a run
 * killed before its teardown (Ctrl-C, a timeout) cannot remove its own. Returns what it removed.
 */
export function removeStaleRunDirs(root = os.tmpdir()): string[] {
  const removed: string[] = [];
  for (const entry of readdirSync(root)) {
    const pid = RUN_DIR.exec(entry)?.[1];
    if (pid === undefined || processExists(Number(pid))) continue;
    rmSync(path.join(root, entry), { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}

/** Gives the run its own `TMPDIR`; the returned teardown checks it is empty and removes it. */
export default function setup(): (() => void) | undefined {
  if (process.env[TMP_GUARD_ENV] === "off") return undefined;
  const previous = process.env.TMPDIR;
  removeStaleRunDirs();
  const runDir = mkdtempSync(path.join(os.tmpdir(), `tapedeck-test-run-${process.pid}-`));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const entries = readdirSync(runDir);
    rmSync(runDir, { recursive: true, force: true });
    const message = leftoversMessage(leftovers(entries));
    if (message === undefined) return;
    // vitest only logs an error thrown by a global teardown; the exit code is what fails CI.
    process.exitCode = 1;
    throw new Error(message);
  };
}
