import * as fs from "node:fs";
import { join } from "node:path";
import { StorageFaultError, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore } from "./index";

/**
 * Injected disk faults: while `fault` is set, `writeSync` (or `fsync`) writes `partialBytes` of
 * what it is given and then fails with that code, as a disk that fills up mid-line does.
 */
const injected: { fault?: string; on?: "write" | "fsync"; partialBytes?: number } = {};

function systemError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall });
}

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    writeSync: (fd: number, data: Uint8Array, offset?: number, length?: number) => {
      if (injected.fault !== undefined && (injected.on ?? "write") === "write") {
        const start = offset ?? 0;
        const partial = Math.min(injected.partialBytes ?? 0, length ?? data.length);
        // A short write first, as a filling disk does, then the failure on the rest.
        if (partial > 0) actual.writeSync(fd, data, start, partial);
        throw systemError(injected.fault, "write");
      }
      return actual.writeSync(fd, data, offset, length);
    },
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      if (injected.fault !== undefined && injected.on === "fsync") {
        callback(systemError(injected.fault, "fsync"));
        return;
      }
      actual.fsync(fd, callback);
    },
  };
});

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => {
  delete injected.fault;
  delete injected.on;
  delete injected.partialBytes;
  temp.cleanup();
});

/** Every file under `dir`, recursively (relative names). */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe("writer: a disk fault ends in one sentence naming the cause and the file", () => {
  it.each([
    ["ENOSPC", "disk full (ENOSPC) writing"],
    ["EDQUOT", "disk quota exceeded (EDQUOT) writing"],
    ["EIO", "input/output error (EIO) writing"],
  ])(
    "%s mid-line: the first error is kept, said again, and the log stays whole",
    async (code, sentence) => {
      const store = createSessionStore({ home: temp.home });
      const { sessionId } = await store.create({ cwd: temp.root });
      const path = store.pathOf(sessionId);
      const run = drafts(uuidv7());
      const writer = await store.openWriter(sessionId);
      await writer.append([run.start(), run.user("q")]);
      const before = fs.statSync(path).size;

      Object.assign(injected, { fault: code, partialBytes: 7 });
      const first = await writer.append([run.assistant("a long answer")]).catch((e) => e);
      delete injected.fault;
      expect(StorageFaultError.isInstance(first)).toBe(true);
      expect(first.message).toBe(`${sentence} ${path}`);
      expect(first).toMatchObject({ systemCode: code, path });

      // Later calls (the run's turn/end, a retry) say the same first error, not "an earlier write".
      const again = await writer.append([run.end()]).catch((e) => e);
      expect(again).toBe(first);
      await expect(writer.sync()).rejects.toBe(first);
      await writer.close();

      // The partial line was cut off: the log ends at its last whole line and reads back clean.
      expect(fs.statSync(path).size).toBe(before);
      const session = await store.readSession(sessionId);
      expect(session.events.map((event) => event.type)).toEqual(["turn/start", "message"]);
      // The lock is released: the session can be continued once there is room.
      const next = await store.openWriter(sessionId);
      await next.append([run.end()]);
      await next.close();
    },
  );

  it("cuts at the byte after the last whole line when earlier appends held non-ASCII text", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await store.create({ cwd: temp.root });
    const path = store.pathOf(sessionId);
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    // Multi-byte UTF-8: a size counted in UTF-16 units would cut into this line.
    await writer.append([run.start(), run.user("résumé — 日本語のテキスト 🎉".repeat(20))]);
    const before = fs.statSync(path).size;
    Object.assign(injected, { fault: "ENOSPC", partialBytes: 5 });
    await writer.append([run.assistant("answer")]).catch((e) => e);
    delete injected.fault;
    await writer.close();
    expect(fs.statSync(path).size).toBe(before);
    const session = await store.readSession(sessionId);
    expect(session.events.map((event) => event.type)).toEqual(["turn/start", "message"]);
  });

  it("a failed fsync at turn/end is reported the same way and its bytes are cut", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await store.create({ cwd: temp.root });
    const path = store.pathOf(sessionId);
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    await writer.append([run.start()]);
    const before = fs.statSync(path).size;
    Object.assign(injected, { fault: "EIO", on: "fsync" });
    await expect(writer.append([run.end()])).rejects.toThrow(
      `input/output error (EIO) writing ${path}`,
    );
    delete injected.fault;
    await writer.close();
    expect(fs.statSync(path).size).toBe(before);
  });

  it("creating a session on a full disk names the log and leaves no .tmp file", async () => {
    const store = createSessionStore({ home: temp.home });
    // The home, journal and one log exist; the next log's bytes do not fit.
    await store.create({ cwd: temp.root });
    const listed = filesUnder(temp.home);
    Object.assign(injected, { fault: "ENOSPC", partialBytes: 10 });
    const error = await store.create({ cwd: temp.root, seed: [] }).catch((e) => e);
    delete injected.fault;
    expect(StorageFaultError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^disk full \(ENOSPC\) writing .*\/(changes\.journal|sessions\/[0-9a-f-]{36}\.jsonl)$/,
    );
    expect(filesUnder(temp.home)).toEqual(listed);
    expect(filesUnder(temp.home).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("a session log that cannot be created (journal written) names the log, no .tmp left", async () => {
    const store = createSessionStore({ home: temp.home });
    await store.create({ cwd: temp.root });
    const journal = join(temp.home, "changes.journal");
    const journalBefore = fs.readFileSync(journal, "utf8");
    // Let the journal's one short record through, fail the log's first write.
    let writes = 0;
    const realWrite = fs.writeSync;
    const spy = vi.spyOn(fs, "writeSync").mockImplementation(((
      ...args: Parameters<typeof realWrite>
    ) => {
      writes += 1;
      if (writes === 2) throw systemError("ENOSPC", "write");
      return realWrite(...args);
    }) as typeof realWrite);
    const error = await store.create({ cwd: temp.root }).catch((e) => e);
    spy.mockRestore();
    expect(error.message).toMatch(
      /^disk full \(ENOSPC\) writing .*\/sessions\/[0-9a-f-]{36}\.jsonl$/,
    );
    expect(fs.readFileSync(journal, "utf8").startsWith(journalBefore)).toBe(true);
    expect(filesUnder(temp.home).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect((await store.scan()).logs).toHaveLength(1);
  });
});
