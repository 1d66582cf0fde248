import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it } from "vitest";
import { deadPid, until } from "../test/helpers";
import { createSessionStore } from "./file-store";
import { isLocksTempLabel, isSessionsTempLabel } from "./leftover-temps";

const sessionId = "019b4dc5-813f-743f-8c49-481b373d2e01";
const header = {
  type: "session",
  version: 1,
  sessionId,
  workspaceId: "/tmp",
  createdAt: "2025-12-24T00:00:00.000Z",
  cwd: "/tmp",
  agent: { name: "tapedeck", version: "0.1.0" },
};
/** A name `tempPathIn(folder, label)` makes in process `pid`. */
const tempName = (label: string, pid: number, n = 1) => `.${label}.${pid}.0123456789ab.${n}.tmp`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A process that runs until the test ends. */
function livePid(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  children.push(child);
  if (child.pid === undefined) throw new Error("no child");
  return child.pid;
}

/** A home whose sessions folder holds one log and the given files (with some bytes each). */
function homeWith(files: readonly string[]): { home: string; sessionsDir: string } {
  const home = testTempDir("tapedeck-leftovers-");
  const sessionsDir = join(home, "sessions");
  mkdirSync(sessionsDir, { recursive: true });
  writeFileSync(join(sessionsDir, `${sessionId}.jsonl`), `${JSON.stringify(header)}\n`);
  for (const file of files) writeFileSync(join(sessionsDir, file), "a copy of a log\n");
  return { home, sessionsDir };
}

describe("temp files a killed process left in the sessions folder", () => {
  it("are removed by the store's first listing when their process is gone; live ones, old ones aside, and other files stay", async () => {
    const dead = deadPid();
    const live = livePid();
    const gone = [
      tempName(`${sessionId}.jsonl`, dead),
      tempName(`${sessionId}.jsonl.torn-120-2025-12-24T00-32-28-000Z`, dead, 2),
      tempName("new-log", dead, 3),
      tempName(`${sessionId}.jsonl`, live, 4),
    ];
    const kept = [
      tempName(`${sessionId}.jsonl`, live, 5),
      tempName("new-log", live, 6),
      ".notes.tmp",
      "notes.tmp",
      tempName("notes", dead),
      tempName("019b4dc5.jsonl", dead),
      `.${sessionId}.jsonl.tmp`,
      `.${sessionId}.jsonl.${dead}.tmp`,
    ];
    const { home, sessionsDir } = homeWith([...gone, ...kept]);
    // A live process's temp file an hour old is not its own (its pid was reused, or another machine's).
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(sessionsDir, gone[3]!), twoHoursAgo, twoHoursAgo);
    const store = createSessionStore({ home });
    const { logs } = await store.scan();
    expect(logs.map((log) => log.sessionId)).toEqual([sessionId]);
    const left = new Set(readdirSync(sessionsDir));
    for (const file of gone) expect(left.has(file), file).toBe(false);
    for (const file of kept) expect(left.has(file), file).toBe(true);
  });

  it("are removed by `sessionIds()` too, once per store", async () => {
    const first = tempName(`${sessionId}.jsonl`, deadPid());
    const { home, sessionsDir } = homeWith([first]);
    const store = createSessionStore({ home });
    expect(await store.sessionIds()).toEqual([sessionId]);
    expect(existsSync(join(sessionsDir, first))).toBe(false);
    // Later listings cost nothing more: a file left after the sweep waits for the next store.
    const second = tempName(`${sessionId}.jsonl`, deadPid(), 2);
    writeFileSync(join(sessionsDir, second), "");
    await store.sessionIds();
    expect(existsSync(join(sessionsDir, second))).toBe(true);
    await createSessionStore({ home }).sessionIds();
    expect(existsSync(join(sessionsDir, second))).toBe(false);
  });

  it("are named by what the store writes there: spares, logs and their sidecars", () => {
    for (const label of ["new-log", `${sessionId}.jsonl`, `${sessionId}.jsonl.torn-0-x-2`])
      expect(isSessionsTempLabel(label), label).toBe(true);
    for (const label of [
      "notes",
      "new-logs",
      `${sessionId}.json`,
      `${sessionId}.jsonl.bak`,
      `${sessionId.toUpperCase()}.jsonl`,
      `${sessionId}.jsonl.torn-`,
      `x${sessionId}.jsonl`,
    ])
      expect(isSessionsTempLabel(label), label).toBe(false);
  });

  it("in the locks folder are removed when the journal is read: a lock's or reclaim marker's of a dead pid; a live pid's stays", async () => {
    const home = testTempDir("tapedeck-leftovers-");
    const store = createSessionStore({ home });
    const { cursor } = await store.changesSince(null);
    const locksDir = join(home, "locks");
    mkdirSync(locksDir, { recursive: true });
    const dead = deadPid();
    const gone = [tempName(`${sessionId}.lock`, dead), tempName(`${sessionId}.lock.reclaim`, dead)];
    const kept = [tempName(`${sessionId}.lock`, livePid()), ".notes.tmp", tempName("notes", dead)];
    for (const file of [...gone, ...kept]) writeFileSync(join(locksDir, file), "{}");
    await store.changesSince(cursor);
    await until(() => gone.every((file) => !existsSync(join(locksDir, file))));
    for (const file of kept) expect(existsSync(join(locksDir, file)), file).toBe(true);
  });

  it("in the home are removed when a journal generation is made: the journal's of a dead pid", async () => {
    const home = testTempDir("tapedeck-leftovers-");
    mkdirSync(home, { recursive: true });
    const gone = tempName("changes.journal", deadPid());
    const kept = [
      tempName("changes.journal", livePid()),
      ".notes.tmp",
      tempName("notes", deadPid()),
    ];
    for (const file of [gone, ...kept]) writeFileSync(join(home, file), "tapedeck-changes 1 ");
    const store = createSessionStore({ home });
    await store.create({ cwd: "/tmp", sessionId });
    await until(() => !existsSync(join(home, gone)));
    for (const file of kept) expect(existsSync(join(home, file)), file).toBe(true);
  });

  it("are named by what the store writes in the locks folder: locks and reclaim markers", () => {
    for (const label of [`${sessionId}.lock`, `${sessionId}.lock.reclaim`])
      expect(isLocksTempLabel(label), label).toBe(true);
    for (const label of ["notes", `${sessionId}.lock.bak`, `${sessionId}.jsonl`, "x.lock"])
      expect(isLocksTempLabel(label), label).toBe(false);
  });
});
