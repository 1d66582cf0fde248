import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { uuidv7 } from "@tapedeck/session";
import { testTempDir } from "@tapedeck/test-temp";
import { beforeEach, describe, expect, it } from "vitest";
import { writeColdLogStreaming, zstdBlockAt } from "../test/cold-logs";
import { drafts } from "../test/helpers";
import { liveColdStreams, MAX_LIVE_STREAMS } from "./cold-stream";
import { createSessionStore, logOffsetSchema, type ReadEvent, type SessionStore } from "./index";
import { referencedBlobs } from "./storage-kinds";
import { firstFrame } from "./zstd";

let root: string;
let store: SessionStore;

beforeEach(() => {
  root = testTempDir("tapedeck-cold-stream-");
  store = createSessionStore({ home: join(root, "home") });
});

/** A finished session of `turns` turns whose outputs are `outputBytes` long (under the blob threshold). */
async function finished(turns: number, outputBytes: number): Promise<string> {
  const { sessionId } = await store.create({ cwd: root, seed: [drafts("s").system("sys")] });
  const writer = await store.openWriter(sessionId);
  for (let turn = 0; turn < turns; turn += 1) {
    const run = drafts(uuidv7());
    const [, , call] = await writer.append([
      run.start(),
      run.user(`question ${turn}: what is in file ${turn}?`),
      run.call(`c${turn}`),
    ]);
    const line = `file ${turn}: ${"ü€".repeat(turn % 7)} contents ${turn * 7919}\n`;
    await writer.append([
      run.output(`c${turn}`, call!.seq, line.repeat(Math.ceil(outputBytes / line.length))),
      run.assistant(`file ${turn} holds its contents`),
      run.end(),
    ]);
  }
  await writer.close();
  return sessionId;
}

async function readAll(
  sessionId: string,
  options: Parameters<SessionStore["read"]>[1] = {},
): Promise<ReadEvent[]> {
  const read: ReadEvent[] = [];
  for await (const event of store.read(sessionId, options)) read.push(event);
  return read;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("a cold log is read as a stream", () => {
  it("read() of a cold log yields the plain log's events with the same lines and offsets, across chunk boundaries", async () => {
    // ≈ 3.5 MB: lines cross the 1 MB read chunks and the stream's window.
    const sessionId = await finished(60, 50_000);
    const plain = await readAll(sessionId);
    const plainSession = await store.readSession(sessionId);
    expect((await store.compact(sessionId)).action).toBe("compressed");
    const cold = await readAll(sessionId);
    expect(cold).toEqual(plain);
    expect(cold.length).toBe(361);
    expect((await store.readSession(sessionId)).events).toEqual(plainSession.events);
  });

  it("fromOffset and fromLine on a cold log mean the plain log's byte offset and line number", async () => {
    const sessionId = await finished(40, 40_000);
    const plain = await readAll(sessionId);
    const middle = plain[200]!;
    const fromMiddle = plain.slice(200);
    await store.compact(sessionId);
    expect(await readAll(sessionId, { fromOffset: middle.offset })).toEqual(fromMiddle);
    expect(await readAll(sessionId, { fromOffset: middle.offset, fromLine: middle.line })).toEqual(
      fromMiddle,
    );
    // The end of the log: nothing more to read.
    expect(await readAll(sessionId, { fromOffset: plain.at(-1)!.end })).toEqual([]);
    // Not a line start: the same error as on the plain log.
    const error = await failure(
      readAll(sessionId, { fromOffset: logOffsetSchema.parse(middle.offset + 1) }),
    );
    expect(error).toMatchObject({ code: "INVALID_OFFSET", sessionId });
  });

  it("a damaged zstd block is COLD_LOG_CORRUPT naming the session and the first line not read, for read and readSession", async () => {
    const sessionId = await finished(60, 50_000);
    await store.compact(sessionId);
    const coldPath = `${store.pathOf(sessionId)}.zst`;
    const bytes = readFileSync(coldPath);
    const secondFrame = firstFrame(bytes)!.end;
    // Block type 3 is reserved: zstd refuses it. The tenth block is ≈ 1.2 MB into the log.
    const block = zstdBlockAt(bytes, secondFrame, 10);
    bytes[block] = (bytes[block] ?? 0) | 0b110;
    writeFileSync(coldPath, bytes);
    const read: ReadEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of store.read(sessionId)) read.push(event);
      })(),
    );
    expect(error).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
    expect(String((error as Error).message)).toMatch(
      new RegExp(
        `^COLD_LOG_CORRUPT at session ${sessionId}, line \\d+, byte \\d+: the compressed log ${sessionId}\\.jsonl\\.zst cannot be decompressed past byte \\d+ of the log \\(zstd: `,
      ),
    );
    // The events before the damage were whole; the error names the line after them.
    expect(read.length).toBeGreaterThan(10);
    expect(error).toMatchObject({ line: read.at(-1)!.line + 1, offset: read.at(-1)!.end });
    const replayError = await failure(store.readSession(sessionId));
    expect(replayError).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
  });

  it("a truncated .zst is COLD_LOG_CORRUPT (never a torn tail), even for a reader that stops at a torn tail", async () => {
    const sessionId = await finished(30, 20_000);
    await store.compact(sessionId);
    const coldPath = `${store.pathOf(sessionId)}.zst`;
    truncateSync(coldPath, Math.floor(readFileSync(coldPath).length * 0.7));
    for (const tornTail of ["throw", "stop"] as const) {
      const error = await failure(readAll(sessionId, { tornTail }));
      expect(error).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
      expect(String((error as Error).message)).toMatch(/\(truncated\)$/);
    }
    expect(await failure(store.readSession(sessionId))).toMatchObject({
      code: "COLD_LOG_CORRUPT",
      sessionId,
    });
    expect(await failure(store.resumeSession(sessionId))).toMatchObject({
      code: "COLD_LOG_CORRUPT",
    });
  });

  it("a .zst that is not zstd at all is COLD_LOG_CORRUPT for readers and in the listing", async () => {
    const sessionId = await finished(2, 1_000);
    await store.compact(sessionId);
    writeFileSync(`${store.pathOf(sessionId)}.zst`, "a gzip file someone renamed, or anything");
    const error = await failure(readAll(sessionId));
    expect(error).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
    expect(String((error as Error).message)).toContain("has no readable zstd frame header");
    expect(store.entry(sessionId)?.headerError).toMatchObject({
      code: "COLD_LOG_CORRUPT",
      sessionId,
    });
    expect(() => store.openLogReader(sessionId)).toThrow(/^COLD_LOG_CORRUPT at session /);
  });

  it("bytes after the frames a cold log declares are COLD_LOG_CORRUPT", async () => {
    const sessionId = await finished(3, 1_000);
    await store.compact(sessionId);
    appendFileSync(`${store.pathOf(sessionId)}.zst`, "not zstd");
    const error = await failure(readAll(sessionId));
    expect(error).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
  });

  it("openLogReader of a cold log reads by position forward and back, the plain log's bytes", async () => {
    const sessionId = await finished(60, 50_000);
    const plain = readFileSync(store.pathOf(sessionId));
    const read = await readAll(sessionId);
    await store.compact(sessionId);
    const reader = store.openLogReader(sessionId)!;
    try {
      // Last line first, then backwards, then a jump forward: every one the plain bytes.
      const picks = [read.at(-1)!, read[300]!, read[120]!, read[2]!, read[250]!];
      for (const { offset, end } of picks) {
        expect(reader.readAt(offset, end - offset)?.equals(plain.subarray(offset, end))).toBe(true);
      }
      const target = Buffer.alloc(100);
      expect(reader.readInto(target, 10, read[200]!.offset, 90)).toBe(true);
      expect(
        target.subarray(10).equals(plain.subarray(read[200]!.offset, read[200]!.offset + 90)),
      ).toBe(true);
      expect(reader.readAt(plain.length - 10, 11)).toBeNull();
    } finally {
      reader.close();
    }
  });

  it("many open readers of cold logs hold a bounded number of decompression contexts and still read right", async () => {
    const ids: string[] = [];
    for (let index = 0; index < MAX_LIVE_STREAMS + 4; index += 1)
      ids.push(await finished(45, 30_000));
    const plains = ids.map((id) => readFileSync(store.pathOf(id)));
    for (const id of ids) await store.compact(id);
    const readers = ids.map((id) => store.openLogReader(id)!);
    try {
      // Round after round over every reader, at positions that go back and forth.
      for (const fraction of [0.2, 0.9, 0.6, 0.1]) {
        readers.forEach((reader, index) => {
          const plain = plains[index]!;
          const offset = Math.floor(plain.length * fraction);
          expect(reader.readAt(offset, 64)?.equals(plain.subarray(offset, offset + 64))).toBe(true);
          expect(liveColdStreams()).toBeLessThanOrEqual(MAX_LIVE_STREAMS);
        });
      }
    } finally {
      for (const reader of readers) reader.close();
    }
    expect(liveColdStreams()).toBe(0);
  });

  it("a writer on a damaged cold log gets COLD_LOG_CORRUPT and the .zst stays as it was, no plain log, segment or temp file made", async () => {
    const sessionId = await finished(30, 20_000);
    await store.compact(sessionId);
    const coldPath = `${store.pathOf(sessionId)}.zst`;
    truncateSync(coldPath, Math.floor(readFileSync(coldPath).length * 0.7));
    const damaged = readFileSync(coldPath);
    const run = drafts(uuidv7());
    const error = await failure(
      store.append(sessionId, [run.start(), run.user("more"), run.end()]),
    );
    expect(error).toMatchObject({ code: "COLD_LOG_CORRUPT", sessionId });
    expect(readFileSync(coldPath).equals(damaged)).toBe(true);
    expect(existsSync(store.pathOf(sessionId))).toBe(false);
    expect(
      readdirSync(join(root, "home", "sessions")).filter(
        (name) => name.endsWith(".tmp") || name.endsWith(".seg"),
      ),
    ).toEqual([]);
  });

  it("reading a 100 MB cold log holds a bounded part of it in memory", async () => {
    const { sessionId } = await store.create({ cwd: root });
    const header = readFileSync(store.pathOf(sessionId));
    const run = uuidv7();
    const content = "x".repeat(4000);
    const lines = 26_000;
    const line = (seq: number) =>
      `${JSON.stringify({ seq, ts: "2026-12-02T10:00:00.000Z", type: "message", runId: run, role: "user", content })}\n`;
    const size = writeColdLogStreaming(store.pathOf(sessionId), header, lines, line);
    expect(size).toBeGreaterThan(100e6);
    // What is held, not what awaits collection: buffers already let go of stay counted until
    // the collector runs, and when it runs depends on the machine (a fresh CI machine once saw
    // 22.2 MB of them here). Collecting before each sample measures what the reader keeps.
    const external = () => {
      collectGarbage();
      const usage = process.memoryUsage();
      return usage.external + usage.arrayBuffers;
    };
    const before = external();
    let peak = before;
    let count = 0;
    for await (const read of store.read(sessionId)) {
      count += 1;
      if (count % 500 === 0) peak = Math.max(peak, external());
      if (read.event.seq !== count) throw new Error(`seq ${read.event.seq} at ${count}`);
    }
    expect(count).toBe(lines);
    // Decompressed whole it held ≥ 100 MB at once; streamed, a few chunks (≈ 1 MB each).
    expect(peak - before).toBeLessThan(size / 5);

    // Search snippets by position: the last line, then the first.
    const reader = store.openLogReader(sessionId)!;
    const beforeReader = external();
    const last = reader.readAt(
      size - Buffer.byteLength(line(lines)),
      Buffer.byteLength(line(lines)),
    );
    const first = reader.readAt(header.length, 100);
    const readerPeak = external() - beforeReader;
    reader.close();
    expect(last?.toString()).toBe(line(lines));
    expect(first?.toString()).toBe(line(1).slice(0, 100));
    expect(readerPeak).toBeLessThan(size / 5);

    // Unused blobs are found by scanning every log in chunks (peak resident memory, reset first).
    const sessions = join(root, "home", "sessions");
    expect(
      peakResidentGrowth(() => referencedBlobs(sessions, join(root, "home", "trash"))),
    ).toBeLessThan(size / 5);
  }, 60_000);
});

/** Runs a full garbage collection (V8's `gc`, exposed for this process without a flag at start). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** How far resident memory peaks above where it was while `operation` runs (Linux: VmHWM, reset first). */
function peakResidentGrowth(operation: () => void): number {
  const status = (field: string) =>
    Number(
      readFileSync("/proc/self/status", "utf8").match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1],
    ) * 1024;
  writeFileSync("/proc/self/clear_refs", "5");
  const before = status("VmRSS");
  operation();
  return status("VmHWM") - before;
}
