import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  EventLogCorruptError,
  InvalidSessionIdError,
  SessionBusyError,
  SessionNotFoundError,
  TapedeckError,
  uuidv7,
} from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import { createSessionStore, type LogOffset, type SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

async function newSession(): Promise<string> {
  const { sessionId } = await store.create({
    cwd: temp.root,
    seed: [drafts("seed").system("You are a test.")],
  });
  return sessionId;
}

function lines(sessionId: string): string[] {
  return readFileSync(store.pathOf(sessionId), "utf8").split("\n");
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("bad input", () => {
  const bad = ["../etc/passwd", "0193B6E2-7C1A-7D3E-9F00-1A2B3C4D5E6F", "", "x.jsonl", "a/../b"];

  it.each(bad)("pathOf refuses %j before building a path", (id) => {
    expect(() => store.pathOf(id)).toThrow(InvalidSessionIdError);
  });

  it("pathOf refuses a value that is not a string", () => {
    expect(() => store.pathOf(undefined as unknown as string)).toThrow(InvalidSessionIdError);
  });

  it("every method refuses a non-UUID id and touches no file", async () => {
    const id = "../etc/passwd";
    await expect(store.readSession(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.resumeSession(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.append(id, [])).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.openWriter(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.readHeader(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.repair(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.fork(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.delete(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.lockOwner(id)).rejects.toBeInstanceOf(InvalidSessionIdError);
    expect(() => store.read(id)).toThrow(InvalidSessionIdError);
    expect(existsSync(temp.home)).toBe(false);
  });

  it("an unknown id is SessionNotFoundError everywhere, and nothing is created", async () => {
    const id = uuidv7();
    await expect(store.readSession(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.readHeader(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.append(id, [drafts("r").user("hi")])).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(store.repair(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.fork(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.delete(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(async () => {
      for await (const _ of store.read(id)) break;
    }).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(existsSync(temp.home)).toBe(false);
  });

  it("refuses an unknown durability", () => {
    expect(() =>
      createSessionStore({ home: temp.home, durability: "sometimes" as "turn" }),
    ).toThrow(/durability/);
  });
});

describe("create", () => {
  it("writes the header and seed, one JSON line each, and returns the complete events", async () => {
    const now = new Date("2026-03-04T05:06:07.089Z");
    const clocked = createSessionStore({ home: temp.home, now: () => now });
    const { sessionId, header, events } = await clocked.create({
      cwd: temp.root,
      seed: [drafts("seed").system("one"), { type: "x-note", runId: "seed", text: "two" }],
    });
    expect(header).toMatchObject({
      type: "session",
      version: 1,
      sessionId,
      createdAt: now.toISOString(),
      cwd: temp.root,
      agent: { name: "tapedeck", version: "0.1.0" },
    });
    expect(events.map((event) => [event.seq, event.ts])).toEqual([
      [1, now.toISOString()],
      [2, now.toISOString()],
    ]);
    expect(lines(sessionId)).toEqual([
      JSON.stringify(header),
      JSON.stringify(events[0]),
      JSON.stringify(events[1]),
      "",
    ]);
    expect(JSON.parse(lines(sessionId)[1]!)).toMatchObject({ seq: 1, type: "message" });
  });

  it("defaults workspaceId to the canonical git root above cwd", async () => {
    mkdirSync(join(temp.root, "repo", ".git"), { recursive: true });
    mkdirSync(join(temp.root, "repo", "src", "deep"), { recursive: true });
    const { header } = await store.create({ cwd: join(temp.root, "repo", "src", "deep") });
    expect(header.workspaceId).toBe(realpathSync(join(temp.root, "repo")));
  });

  it("defaults workspaceId to the canonical cwd outside a git repository", async () => {
    mkdirSync(join(temp.root, "plain"));
    const { header } = await store.create({ cwd: join(temp.root, "plain") });
    expect(header.workspaceId).toBe(realpathSync(join(temp.root, "plain")));
  });

  it("keeps an explicit workspaceId and agent", async () => {
    const custom = createSessionStore({ home: temp.home, agent: { name: "x", version: "9" } });
    const { header } = await custom.create({ cwd: temp.root, workspaceId: "ws-1" });
    expect(header.workspaceId).toBe("ws-1");
    expect(header.agent).toEqual({ name: "x", version: "9" });
  });

  it("refuses an invalid seed and writes no file", async () => {
    await expect(
      store.create({
        cwd: temp.root,
        seed: [{ ...drafts("r").user("x"), role: "robot" } as never],
      }),
    ).rejects.toMatchObject({ code: "SCHEMA" });
    expect(
      existsSync(join(temp.home, "sessions")) ? readdirSync(join(temp.home, "sessions")) : [],
    ).toEqual([]);
  });
});

describe("append", () => {
  it("assigns contiguous seqs and timestamps and writes exactly one line per event", async () => {
    const id = await newSession();
    const run = drafts(uuidv7());
    const first = await store.append(id, [run.start(), run.user("hello")]);
    const second = await store.append(id, [run.assistant("hi"), run.end()]);
    expect([...first, ...second].map((event) => event.seq)).toEqual([2, 3, 4, 5]);
    for (const event of [...first, ...second]) {
      expect(event.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(lines(id).slice(2)).toEqual(
      [...first, ...second].map((e) => JSON.stringify(e)).concat(""),
    );
  });

  it("ignores seq and ts smuggled into a draft", async () => {
    const id = await newSession();
    const run = drafts(uuidv7());
    const [event] = await store.append(id, [{ ...run.start(), seq: 99, ts: "then" } as never]);
    expect(event).toMatchObject({ seq: 2 });
    expect(event?.ts).not.toBe("then");
  });

  it("validates the whole batch first: one invalid draft writes nothing and leaves the writer's session as it was", async () => {
    const id = await newSession();
    const before = readFileSync(store.pathOf(id));
    const run = drafts(uuidv7());
    const writer = await store.openWriter(id);
    try {
      await expect(
        writer.append([run.start(), run.user("fine"), run.output("nope", 2, "orphan")]),
      ).rejects.toMatchObject({ code: "ORPHAN_OUTPUT", seq: 4, sessionId: id });
      expect(readFileSync(store.pathOf(id))).toEqual(before);
      expect(writer.session.lastSeq).toBe(1);
      expect(writer.session.openTurn).toBeNull();
      // The writer is still usable and continues from the same seq.
      const events = await writer.append([run.start(), run.user("again")]);
      expect(events.map((event) => event.seq)).toEqual([2, 3]);
    } finally {
      await writer.close();
    }
    expect((await store.readSession(id)).lastSeq).toBe(3);
  });

  it("zod-validates drafts (SCHEMA) before the invariants", async () => {
    const id = await newSession();
    const before = readFileSync(store.pathOf(id));
    await expect(
      store.append(id, [{ type: "turn/start", runId: "r" } as never]),
    ).rejects.toMatchObject({ code: "SCHEMA" });
    await expect(store.append(id, [{ type: "bogus", runId: "r" } as never])).rejects.toMatchObject({
      code: "SCHEMA",
    });
    expect(readFileSync(store.pathOf(id))).toEqual(before);
  });

  it("appending no drafts writes nothing", async () => {
    const id = await newSession();
    const before = readFileSync(store.pathOf(id));
    expect(await store.append(id, [])).toEqual([]);
    expect(readFileSync(store.pathOf(id))).toEqual(before);
  });

  it("a closed writer refuses appends; close is idempotent and releases the lock", async () => {
    const id = await newSession();
    const writer = await store.openWriter(id);
    await writer.close();
    await writer.close();
    await expect(writer.append([drafts("r").start()])).rejects.toMatchObject({
      code: "WRITER_CLOSED",
    });
    expect(await store.lockOwner(id)).toBeUndefined();
  });

  it("nothing is cached: another store instance sees every append at once", async () => {
    const id = await newSession();
    const other = createSessionStore({ home: temp.home });
    const run = drafts(uuidv7());
    await store.append(id, [run.start(), run.user("from store one")]);
    expect((await other.readSession(id)).history().at(-1)).toEqual({
      type: "message",
      role: "user",
      content: "from store one",
    });
    await other.append(id, [run.end()]);
    expect((await store.readSession(id)).openTurn).toBeNull();
  });
});

describe("locking", () => {
  it("a second writer in the same process gets SessionBusyError naming the owner", async () => {
    const id = await newSession();
    const writer = await store.openWriter(id);
    try {
      const error = await store.openWriter(id).catch((caught: unknown) => caught);
      expect(SessionBusyError.isInstance(error)).toBe(true);
      expect((error as SessionBusyError).owner).toMatchObject({
        pid: process.pid,
        host: hostname(),
      });
      await expect(store.append(id, [drafts("r").start()])).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      expect(await store.lockOwner(id)).toMatchObject({ pid: process.pid });
    } finally {
      await writer.close();
    }
    const again = await store.openWriter(id);
    await again.close();
  });

  it("reclaims a stale lock left by a dead process on this host", async () => {
    const id = await newSession();
    const lockPath = join(temp.home, "locks", `${id}.lock`);
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    const pid = deadPid();
    writeFileSync(
      lockPath,
      JSON.stringify({ pid, host: hostname(), startedAt: "2026-01-01T00:00:00.000Z" }),
    );
    expect(await store.lockOwner(id)).toBeUndefined();
    const events = await store.append(id, [drafts("r").start()]);
    expect(events).toHaveLength(1);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("reclaims a lock with this process's pid that this process does not hold (pid reuse)", async () => {
    const id = await newSession();
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    writeFileSync(
      join(temp.home, "locks", `${id}.lock`),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        startedAt: "2026-01-01T00:00:00.000Z",
        token: "an-earlier-process",
      }),
    );
    expect(await store.lockOwner(id)).toBeUndefined();
    const writer = await store.openWriter(id);
    await expect(store.openWriter(id)).rejects.toBeInstanceOf(SessionBusyError);
    await writer.close();
  });

  it("never reclaims a lock held on another host", async () => {
    const id = await newSession();
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    const owner = {
      pid: deadPid(),
      host: `not-${hostname()}`,
      startedAt: "2026-01-01T00:00:00.000Z",
    };
    writeFileSync(join(temp.home, "locks", `${id}.lock`), JSON.stringify(owner));
    await expect(store.append(id, [drafts("r").start()])).rejects.toMatchObject({
      code: "SESSION_BUSY",
      owner,
    });
    expect(await store.lockOwner(id)).toEqual(owner);
  });

  it("treats a fresh unreadable lock as busy", async () => {
    const id = await newSession();
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    writeFileSync(join(temp.home, "locks", `${id}.lock`), "{garbage");
    await expect(store.openWriter(id)).rejects.toBeInstanceOf(SessionBusyError);
  });
});

describe("read", () => {
  it("yields each event with its line, byte offset and end", async () => {
    const id = await newSession();
    const run = drafts(uuidv7());
    await store.append(id, [run.start(), run.user("héllo ✓ 你好"), run.end()]);
    const bytes = readFileSync(store.pathOf(id));
    const read = [];
    for await (const entry of store.read(id)) read.push(entry);
    expect(read.map((entry) => [entry.line, entry.event.seq])).toEqual([
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 4],
    ]);
    for (const entry of read) {
      const text = bytes.subarray(entry.offset, entry.end).toString("utf8");
      expect(text).toBe(`${JSON.stringify(entry.event)}\n`);
    }
    expect(read.at(-1)?.end).toBe(bytes.length);
  });

  it("continues from a byte offset with the right line numbers", async () => {
    const id = await newSession();
    const run = drafts(uuidv7());
    await store.append(id, [run.start(), run.user("a"), run.user("b")]);
    const all = [];
    for await (const entry of store.read(id)) all.push(entry);
    const from = all[2]!;
    const rest = [];
    for await (const entry of store.read(id, { fromOffset: from.offset })) rest.push(entry);
    expect(rest.map((entry) => [entry.line, entry.offset, entry.event.seq])).toEqual(
      all.slice(2).map((entry) => [entry.line, entry.offset, entry.event.seq]),
    );
    const atEnd = [];
    for await (const entry of store.read(id, { fromOffset: all.at(-1)!.end })) atEnd.push(entry);
    expect(atEnd).toEqual([]);
  });

  it("refuses an offset that is not a line start or lies past the end", async () => {
    const id = await newSession();
    const size = readFileSync(store.pathOf(id)).length;
    for (const fromOffset of [3, size - 1, size + 10]) {
      await expect(async () => {
        for await (const _ of store.read(id, { fromOffset: fromOffset as LogOffset })) break;
      }).rejects.toMatchObject({ code: "INVALID_OFFSET" });
    }
    expect(() => store.read(id, { fromOffset: -1 as LogOffset })).toThrow(TapedeckError);
    expect(() => store.read(id, { fromLine: 1 })).toThrow(TapedeckError);
  });

  it("yields the whole lines, then throws TORN_TAIL with line and offset", async () => {
    const id = await newSession();
    const size = readFileSync(store.pathOf(id)).length;
    writeFileSync(store.pathOf(id), '{"seq":2,"ts":"2026', { flag: "a" });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const entry of store.read(id)) seen.push(entry.event.seq);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual([1]);
    expect(EventLogCorruptError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "TORN_TAIL", line: 3, offset: size, sessionId: id });
  });

  it('with tornTail "stop", ends quietly at the last whole line', async () => {
    const id = await newSession();
    writeFileSync(store.pathOf(id), '{"seq":2,"ts":"2026', { flag: "a" });
    const seen: number[] = [];
    for await (const entry of store.read(id, { tornTail: "stop" })) seen.push(entry.event.seq);
    expect(seen).toEqual([1]);
  });

  it("readHeader returns the validated header and names a foreign header BAD_HEADER", async () => {
    const id = await newSession();
    expect((await store.readHeader(id)).sessionId).toBe(id);
    const other = uuidv7();
    writeFileSync(store.pathOf(other), readFileSync(store.pathOf(id)));
    await expect(store.readHeader(other)).rejects.toMatchObject({
      code: "BAD_HEADER",
      line: 1,
      sessionId: other,
    });
    await expect(store.readSession(other)).rejects.toMatchObject({ code: "BAD_HEADER" });
  });

  it("refuses an empty log and a header without its newline (BAD_HEADER, never repaired)", async () => {
    const id = await newSession();
    const header = lines(id)[0]!;
    writeFileSync(store.pathOf(id), "");
    await expect(store.readSession(id)).rejects.toMatchObject({ code: "BAD_HEADER", line: 1 });
    writeFileSync(store.pathOf(id), header);
    await expect(store.readHeader(id)).rejects.toMatchObject({ code: "BAD_HEADER", line: 1 });
    await expect(store.resumeSession(id)).rejects.toMatchObject({ code: "BAD_HEADER" });
    await expect(store.repair(id)).rejects.toMatchObject({ code: "BAD_HEADER" });
    expect(readFileSync(store.pathOf(id), "utf8")).toBe(header);
  });

  it("refuses a log of an unknown format version, naming it", async () => {
    const id = await newSession();
    const [header, ...rest] = lines(id);
    const newer = { ...JSON.parse(header!), version: 7 };
    writeFileSync(store.pathOf(id), [JSON.stringify(newer), ...rest].join("\n"));
    await expect(store.readSession(id)).rejects.toMatchObject({
      code: "BAD_HEADER",
      message: expect.stringContaining("version 7"),
    });
  });
});

describe("readSession", () => {
  it("refuses a log that breaks an invariant, naming line and offset", async () => {
    const id = await newSession();
    const run = drafts(uuidv7());
    await store.append(id, [run.start(), run.user("a"), run.end()]);
    const all = lines(id);
    // Drop seq 3: seq 4 now follows seq 2.
    const damaged = [...all.slice(0, 3), ...all.slice(4)].join("\n");
    writeFileSync(store.pathOf(id), damaged);
    const offset = Buffer.byteLength(`${all.slice(0, 3).join("\n")}\n`);
    await expect(store.readSession(id)).rejects.toMatchObject({
      code: "SEQ_GAP",
      line: 4,
      offset,
      seq: 4,
      sessionId: id,
    });
  });

  it("replays a long log with the same state the writer had", async () => {
    const id = await newSession();
    const writer = await store.openWriter(id);
    for (let turn = 0; turn < 20; turn += 1) {
      const run = drafts(uuidv7());
      const [, , call] = await writer.append([
        run.start(),
        run.user(`q${turn}`),
        run.call(`c${turn}`),
      ]);
      await writer.append([
        run.output(`c${turn}`, call!.seq, "out"),
        run.assistant("a"),
        run.end(),
      ]);
    }
    const live = writer.session;
    await writer.close();
    const replayed = await store.readSession(id);
    expect(replayed.events).toEqual(live.events);
    expect(replayed.surface).toEqual(live.surface);
    expect(replayed.turnCount).toBe(20);
  });
});

describe("list and delete", () => {
  it("lists sessions oldest first with their headers, skipping sidecars, temp files and damaged headers", async () => {
    const a = await newSession();
    const b = await newSession();
    const dir = join(temp.home, "sessions");
    writeFileSync(join(dir, `${a}.jsonl.torn-0-x`), "{");
    writeFileSync(join(dir, `.${b}.jsonl.1.tmp`), "");
    writeFileSync(join(dir, `${uuidv7()}.jsonl`), "not a header\n");
    const listed = await store.list();
    expect(listed.map((listing) => listing.sessionId)).toEqual([a, b]);
    expect(listed[0]!.header.sessionId).toBe(a);
    expect(listed[0]!.size).toBe(readFileSync(store.pathOf(a)).length);
  });

  it("lists nothing for a home that does not exist", async () => {
    expect(await store.list()).toEqual([]);
    expect(existsSync(temp.home)).toBe(false);
  });

  it("moves a deleted log (and its sidecars) to trash, never unlinking", async () => {
    const id = await newSession();
    const bytes = readFileSync(store.pathOf(id));
    writeFileSync(`${store.pathOf(id)}.torn-5-x`, "frag");
    await store.delete(id);
    expect(existsSync(store.pathOf(id))).toBe(false);
    expect(readFileSync(join(temp.home, "trash", `${id}.jsonl`))).toEqual(bytes);
    expect(readFileSync(join(temp.home, "trash", `${id}.jsonl.torn-5-x`), "utf8")).toBe("frag");
    await expect(store.readSession(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await store.list()).toEqual([]);
  });

  it("refuses to delete a session while a writer holds it", async () => {
    const id = await newSession();
    const writer = await store.openWriter(id);
    await expect(store.delete(id)).rejects.toBeInstanceOf(SessionBusyError);
    await writer.close();
    expect(existsSync(store.pathOf(id))).toBe(true);
  });

  it("refuses to delete a session while a fork references it (SESSION_HAS_FORKS)", async () => {
    const id = await newSession();
    const child = await store.fork(id);
    const error = await store.delete(id).catch((caught: unknown) => caught);
    expect(TapedeckError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "SESSION_HAS_FORKS" });
    expect((error as Error).message).toContain(child.sessionId);
    expect(existsSync(store.pathOf(id))).toBe(true);
    await store.delete(child.sessionId);
    await store.delete(id);
    expect(readdirSync(join(temp.home, "trash")).sort()).toEqual(
      [`${id}.jsonl`, `${child.sessionId}.jsonl`].sort(),
    );
  });
});
