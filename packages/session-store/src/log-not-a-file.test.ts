import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore, LogNotAFileError, type SessionStore } from "./index";

let temp: ReturnType<typeof tempDirectory>;
let store: SessionStore;
let warnings: string[];

beforeEach(() => {
  temp = tempDirectory();
  warnings = [];
  store = createSessionStore({ home: temp.home, onWarning: (message) => warnings.push(message) });
});
afterEach(() => temp.cleanup());

async function goodSession(): Promise<string> {
  const { sessionId } = await store.create({
    cwd: temp.root,
    seed: [drafts("seed").system("You are a test.")],
  });
  return sessionId;
}

const entries = {
  directory: (path: string) => mkdirSync(path),
  FIFO: (path: string) => execFileSync("mkfifo", [path]),
  "symbolic link": (path: string) => {
    const target = join(temp.root, "secret.txt");
    writeFileSync(target, "TOP SECRET first line\n");
    symlinkSync(target, path);
  },
} as const;

describe("entries of sessions/ that are not regular files", () => {
  it.each(Object.keys(entries) as (keyof typeof entries)[])(
    "a %s named <uuid>.jsonl is skipped by list() with one warning naming it, and refused by reads",
    async (kind) => {
      const good = await goodSession();
      const bad = uuidv7();
      entries[kind](store.pathOf(bad));

      const listed = await store.list();
      expect(listed.map((listing) => listing.sessionId)).toEqual([good]);
      await store.list();
      expect(warnings).toEqual([
        `sessions/${bad}.jsonl is a ${kind}, not a session log file; it is skipped.`,
      ]);

      const read = store.readSession(bad);
      await expect(read).rejects.toThrow(LogNotAFileError);
      await expect(read).rejects.toMatchObject({ code: "LOG_NOT_A_FILE", kind });
      await expect(read).rejects.not.toThrow(/SECRET/);
      await expect(store.resumeSession(bad)).rejects.toThrow(LogNotAFileError);
      // Reads by position (search hits, the viewer's pages) neither follow, wait nor fail: a
      // writer at the FIFO's other end makes the wait of a blocking open end, so this fails
      // rather than hangs without the fix.
      const writer =
        kind === "FIFO" ? spawn("sh", ["-c", 'exec 3>"$0"; sleep 5', store.pathOf(bad)]) : null;
      try {
        expect(store.openLogReader(bad)).toBeNull();
      } finally {
        writer?.kill();
      }
    },
    5_000,
  );
});
