import {
  appendFileSync,
  fstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { appendTurnTo, drafts, journalIds, newSessionIn, tempDirectory } from "../test/helpers";
import { ChangeJournal, JOURNAL_FILE } from "./change-journal";
import { createSessionStore, type SessionStore } from "./index";

/** Runs after each `openSync` the store makes, while set (another process acting in between). */
const opened = vi.hoisted(() => ({ hook: undefined as ((path: string) => void) | undefined }));
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const openSync = (...args: Parameters<typeof actual.openSync>) => {
    const fd = actual.openSync(...args);
    opened.hook?.(String(args[0]));
    return fd;
  };
  return { ...actual, openSync, default: { ...actual, openSync } };
});

let temp: ReturnType<typeof tempDirectory>;
let store: SessionStore;
let warnings: string[];

beforeEach(() => {
  temp = tempDirectory();
  warnings = [];
  store = createSessionStore({
    home: temp.home,
    onWarning: (message) => warnings.push(message),
  });
});
afterEach(() => temp.cleanup());

const newSession = () => newSessionIn(store, temp.root);
const appendTurn = (sessionId: string) => appendTurnTo(store, sessionId);

describe("scan", () => {
  it("lists every log with size, mtime, inode and header, and damaged headers with their error", async () => {
    const a = await newSession();
    const b = await newSession();
    writeFileSync(store.pathOf(b), "not json\n");
    const { logs, skipped } = await store.scan();
    expect(logs.map((log) => log.sessionId)).toEqual([a, b]);
    expect(logs[0]).toMatchObject({ sessionId: a, header: { sessionId: a } });
    expect(logs[0]?.size).toBe(readFileSync(store.pathOf(a)).length);
    expect(logs[1]?.headerError?.code).toBe("BAD_JSON");
    expect(skipped).toEqual([]);
    expect((await store.list()).map((listing) => listing.sessionId)).toEqual([a]);
  });

  it("skips entries named like a log that are not regular files, with a warning", async () => {
    const a = await newSession();
    const linked = uuidv7();
    const folder = uuidv7();
    symlinkSync(store.pathOf(a), join(store.sessionsDir, `${linked}.jsonl`));
    mkdirSync(join(store.sessionsDir, `${folder}.jsonl`));
    const { logs, skipped } = await store.scan();
    expect(logs.map((log) => log.sessionId)).toEqual([a]);
    expect(skipped.map((entry) => entry.name).sort()).toEqual(
      [`${linked}.jsonl`, `${folder}.jsonl`].sort(),
    );
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain("symbolic link");
    await store.scan();
    expect(warnings).toHaveLength(2); // once per entry, not per listing
    expect(store.entry(linked)).toBeNull();
    // `hasLog` says only that the name is taken (an import must not create over it).
    expect([a, linked, folder, uuidv7()].map((id) => store.hasLog(id))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe("changesSince", () => {
  it("scans without a cursor, then names only the sessions written since", async () => {
    const a = await newSession();
    const b = await newSession();
    const first = await store.changesSince();
    expect(first).toMatchObject({ kind: "scan", reason: "no-cursor" });
    expect(first.kind === "scan" && first.logs.map((log) => log.sessionId)).toEqual([a, b]);
    const quiet = await store.changesSince(first.cursor);
    expect(journalIds(quiet)).toEqual([]);
    await appendTurn(b);
    const next = await store.changesSince(quiet.cursor);
    expect(journalIds(next)).toEqual([b]);
    expect(journalIds(await store.changesSince(next.cursor))).toEqual([]);
  });

  it("names created, forked, repaired and deleted sessions", async () => {
    const { cursor } = await store.changesSince();
    const a = await newSession();
    const fork = await store.fork(a);
    const created = await store.changesSince(cursor);
    expect(journalIds(created)).toEqual([a, fork.sessionId].sort());
    await store.delete(fork.sessionId);
    const deleted = await store.changesSince(created.cursor);
    expect(journalIds(deleted)).toEqual([fork.sessionId]);
    expect(store.entry(fork.sessionId)).toBeNull();
    appendFileSync(store.pathOf(a), '{"seq":2');
    await store.repair(a);
    expect(journalIds(await store.changesSince(deleted.cursor))).toEqual([a]);
  });

  it("a crash between the journal line and the append costs one look at an unchanged log", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    // What a writer that died right after recording its open leaves behind.
    new ChangeJournal(temp.home).record("o", a);
    const size = store.entry(a)?.size;
    const changes = await store.changesSince(cursor);
    expect(journalIds(changes)).toEqual([a]);
    expect(store.entry(a)?.size).toBe(size);
  });

  it("a writer that appends after the reader passed its open line is named again (lock, then close)", async () => {
    const a = await newSession();
    const writer = await store.openWriter(a);
    const seen = await store.changesSince((await store.changesSince()).cursor);
    const d = drafts(uuidv7());
    await writer.append([d.start(), d.user("later")]);
    // Still open: named because it holds the lock.
    const open = await store.changesSince(seen.cursor);
    expect(journalIds(open)).toEqual([a]);
    await writer.append([d.end()]);
    await writer.close();
    // Closed after the last read: named by its close record.
    expect(journalIds(await store.changesSince(open.cursor))).toEqual([a]);
  });

  it("a writer that died holding the lock keeps its session named until the lock is reclaimed", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    const lockPath = join(temp.home, "locks", `${a}.lock`);
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: 999_999_999, host: "elsewhere", startedAt: new Date().toISOString() }),
    );
    expect(journalIds(await store.changesSince(cursor))).toEqual([a]);
    rmSync(lockPath);
  });

  it("falls back to a scan when the journal is deleted by hand, then continues from the new one", async () => {
    const a = await newSession();
    const { cursor } = await store.changesSince();
    rmSync(join(temp.home, JOURNAL_FILE));
    await appendTurn(a); // recreates the journal: a new generation
    const after = await store.changesSince(cursor);
    expect(after).toMatchObject({ kind: "scan", reason: "rotated" });
    rmSync(join(temp.home, JOURNAL_FILE));
    const missing = await store.changesSince(after.cursor);
    expect(missing).toMatchObject({ kind: "scan", reason: "missing" });
    expect(missing.kind === "scan" && missing.logs.map((log) => log.sessionId)).toEqual([a]);
    await appendTurn(a);
    expect(journalIds(await store.changesSince(missing.cursor))).toEqual([a]);
  });

  it("reads records across its read chunks (100 KB of them), and not a record still being written", async () => {
    await newSession();
    const { cursor } = await store.changesSince();
    const ids = Array.from({ length: 2600 }, () => uuidv7());
    for (const id of ids) store.announceChange(id);
    const journal = join(temp.home, JOURNAL_FILE);
    appendFileSync(journal, "o 0193"); // a writer's record, half written
    const changes = await store.changesSince(cursor);
    expect(journalIds(changes)).toEqual([...ids].sort());
    expect(Number(changes.cursor?.split(":")[1])).toBe(readFileSync(journal).length - 6);
  });

  it("reads the records of the journal whose header it read, when a writer rotates it in between", async () => {
    await newSession();
    const { cursor } = await store.changesSince();
    const changed = uuidv7();
    store.announceChange(changed);
    const journal = join(temp.home, JOURNAL_FILE);
    const before = readFileSync(journal, "utf8");
    // Another writer's new generation, with records of another session where the old ones were.
    const other = uuidv7();
    const records = before.split("\n").length - 2;
    const rotated = `tapedeck-changes 1 ${"f".repeat(16)}\n${`o ${other}\n`.repeat(records)}`;
    let opens = 0;
    opened.hook = (path) => {
      if (path !== journal) return;
      opens += 1;
      if (opens !== 1) return;
      writeFileSync(`${journal}.next`, rotated);
      renameSync(`${journal}.next`, journal);
    };
    try {
      const changes = await store.changesSince(cursor);
      expect(journalIds(changes)).toEqual([changed]);
      expect(await store.changesSince(changes.cursor)).toMatchObject({ reason: "rotated" });
    } finally {
      opened.hook = undefined;
    }
  });

  it("lists the folder (present) when other programs copied a log in or deleted one", async () => {
    const a = await newSession();
    const b = await newSession();
    const { cursor } = await store.changesSince();
    const copy = uuidv7();
    writeFileSync(join(store.sessionsDir, `${copy}.jsonl`), readFileSync(store.pathOf(a)));
    rmSync(store.pathOf(b));
    const changes = await store.changesSince(cursor);
    expect(changes).toMatchObject({ kind: "journal", sessionIds: [] });
    expect(changes.kind === "journal" && changes.present).toEqual([a, copy].sort());
  });

  it("sees a folder change made within the timestamp tick of the cursor's stamp (a racy stamp)", async () => {
    const a = await newSession();
    const b = await newSession();
    // The folder's mtime has the file system's granularity (a jiffy, or a whole second): a log
    // deleted in the same tick as the stamp was taken leaves the mtime as it was.
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    utimesSync(store.sessionsDir, tick, tick);
    const { cursor } = await store.changesSince();
    rmSync(store.pathOf(b));
    utimesSync(store.sessionsDir, tick, tick);
    const changes = await store.changesSince(cursor);
    expect(changes.kind === "journal" && changes.present).toEqual([a]);
  });

  it("refuses a cursor that is not one (scan, no error)", async () => {
    await newSession();
    expect(await store.changesSince("../etc/passwd")).toMatchObject({
      kind: "scan",
      reason: "no-cursor",
    });
  });

  it("rotates a journal past its size limit: readers behind it scan once", async () => {
    const small = createSessionStore({ home: temp.home, journalMaxBytes: 200 });
    const { sessionId } = await small.create({ cwd: temp.root });
    const { cursor } = await small.changesSince();
    const generation = cursor?.split(":")[0];
    for (let index = 0; index < 4; index += 1) {
      const d = drafts(uuidv7());
      await small.append(sessionId, [d.start(), d.user("x"), d.end()]);
    }
    expect(readFileSync(join(temp.home, JOURNAL_FILE)).length).toBeLessThan(400);
    const after = await small.changesSince(cursor);
    expect(after).toMatchObject({ kind: "scan", reason: "rotated" });
    expect(after.cursor?.split(":")[0]).not.toBe(generation);
  });
});

describe("a writer's kept journal", () => {
  /**
   * Descriptors of this process open on the file now at `path`: every descriptor number up to
   * 4096 whose `fstat` is that file (device and inode), on any platform.
   */
  const openOn = (path: string) => {
    const file = statSync(path);
    let open = 0;
    for (let fd = 0; fd < 4096; fd += 1) {
      try {
        const stats = fstatSync(fd);
        if (stats.ino === file.ino && stats.dev === file.dev) open += 1;
      } catch {
        // not an open descriptor
      }
    }
    return open;
  };

  it("stays open between records, follows another writer's rotation and a rewrite in place, and closes when idle", () => {
    vi.useFakeTimers();
    try {
      const path = join(temp.home, JOURNAL_FILE);
      const writer = new ChangeJournal(temp.home);
      const [a, b, c, d, e] = Array.from({ length: 5 }, () => uuidv7());
      writer.record("n", a!);
      writer.record("n", b!);
      expect(openOn(path)).toBe(1);
      // Another writer rotates it: the next record goes into the new generation.
      const other = new ChangeJournal(temp.home, 10);
      other.record("n", c!);
      writer.record("n", d!);
      const rotated = readFileSync(path, "utf8");
      expect(rotated).not.toContain(a!);
      expect(rotated).toContain(`n ${d}\n`);
      // Rewritten in place (same file, no header): replaced by a new generation that has the record.
      writeFileSync(path, "not a journal\n");
      writer.record("n", e!);
      const replaced = readFileSync(path, "utf8");
      expect(replaced).toMatch(/^tapedeck-changes 1 [0-9a-f]{16}\nn /);
      expect(replaced).toContain(`n ${e}\n`);
      expect(new ChangeJournal(temp.home).position()).not.toBeNull();
      vi.advanceTimersByTime(150);
      expect(openOn(path)).toBe(1);
      vi.advanceTimersByTime(100);
      expect(openOn(path)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("watch", () => {
  it("is null until the sessions folder exists", () => {
    expect(store.watch(() => undefined)).toBeNull();
  });

  it("names a session soon after its log is appended to, until stopped", async () => {
    const sessionId = await newSession();
    const seen: Array<string | null> = [];
    const stop = store.watch((id) => seen.push(id));
    expect(stop).not.toBeNull();
    await appendTurn(sessionId);
    await expect.poll(() => seen, { timeout: 5000 }).toContain(sessionId);
    stop?.();
    const count = seen.length;
    // A second watcher marks when the next append has been reported: the stopped one saw none.
    const later: Array<string | null> = [];
    const stopLater = store.watch((id) => later.push(id));
    await appendTurn(sessionId);
    await expect.poll(() => later, { timeout: 5000 }).toContain(sessionId);
    stopLater?.();
    expect(seen).toHaveLength(count);
  });
});
