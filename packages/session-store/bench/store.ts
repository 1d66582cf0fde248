/**
 * `pnpm bench` for @tapedeck/session-store: append throughput, replay cost against bare
 * JSON.parse, resume and fork of a large session, and append cost as the log grows.
 *
 * TAPEDECK_BENCH_EVENTS (default 100000) sets the size of the large log.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, printTable, sample, time } from "@tapedeck/bench";
import { type SessionEvent, type SessionEventDraft, uuidv7 } from "@tapedeck/session";
import { benchTurnStart } from "@tapedeck/session/testing";
import {
  createSessionStore,
  type Durability,
  type SessionStore,
  type SessionWriter,
} from "../src/index";

const largeEvents = Number(process.env.TAPEDECK_BENCH_EVENTS ?? 100_000);
const root = mkdtempSync(join(tmpdir(), "tapedeck-bench-"));

/** One realistic turn (13 events) whose first event gets seq `first`. */
function turnDrafts(first: number, open = false): SessionEventDraft[] {
  const runId = uuidv7();
  const requestId = `req_${first}`;
  const callId = `call_${first}`;
  const drafts: SessionEventDraft[] = [
    benchTurnStart(runId),
    {
      type: "message",
      runId,
      role: "user",
      content: `Please look at src/file-${first}.ts and explain what the exported function does, then fix the bug in it.`,
    },
    {
      type: "model/request",
      runId,
      requestId,
      provider: "openai",
      model: "gpt-4.1-mini",
      inputDigest: "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f0",
      toolsDigest: "sha256:a1b2c3d4e5f60718293a4b5c6d7e8f90",
      inputItems: [first + 1],
    },
    ...[0, 1, 2, 3, 4].map(
      (index): SessionEventDraft => ({
        type: "assistant/chunk",
        runId,
        requestId,
        index,
        delta: { text: ["Let ", "me ", "read ", "the ", "file."][index]! },
      }),
    ),
    {
      type: "model/response",
      runId,
      requestId,
      finishReason: "tool_calls",
      usage: { inputTokens: 1200, outputTokens: 40 },
    },
    {
      type: "function_call",
      runId,
      callId,
      name: "read_file",
      arguments: JSON.stringify({ path: `src/file-${first}.ts` }),
    },
  ];
  if (open) return drafts;
  drafts.push(
    {
      type: "function_call_output",
      runId,
      callId,
      output:
        `export function f${first}(value: number): number {\n  return value * 2; // TODO: should be 3\n}\n`.repeat(
          4,
        ),
      isError: false,
      sourceEventSeqs: [first + 9],
    },
    {
      type: "message",
      runId,
      role: "assistant",
      content: "The function doubles its input; the comment says it should triple it. Fixed.",
    },
    { type: "turn/end", runId, status: "completed" },
  );
  return drafts;
}

/**
 * A session with about `count` events, written straight to the file (building it through the
 * writer would fsync every turn and take minutes). It ends inside an open turn with a pending
 * call, so resume has repairs to make. Replay validates every line anyway.
 */
async function largeSession(store: SessionStore, count: number): Promise<string> {
  const { sessionId } = await store.create({ cwd: root, workspaceId: "bench" });
  const path = store.pathOf(sessionId);
  let seq = 0;
  let chunk = "";
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const push = (drafts: SessionEventDraft[]) => {
    for (const draft of drafts) {
      seq += 1;
      const event = { seq, ts: new Date(start + seq).toISOString(), ...draft };
      chunk += `${JSON.stringify(event)}\n`;
    }
    if (chunk.length > 1 << 20) {
      appendFileSync(path, chunk);
      chunk = "";
    }
  };
  while (seq + 13 + 10 <= count) push(turnDrafts(seq + 1));
  push(turnDrafts(seq + 1, true));
  appendFileSync(path, chunk);
  return sessionId;
}

function median(sorted: readonly number[]): number {
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function appendThroughput(durability: Durability, turns: number): Promise<number> {
  const store = createSessionStore({ home: join(root, `append-${durability}`), durability });
  const { sessionId } = await store.create({ cwd: root, workspaceId: "bench" });
  return appendTurns(await store.openWriter(sessionId), turns);
}

/** Events/s appending `turns` turns one event per append (as a run streams them); closes `writer`. */
async function appendTurns(writer: SessionWriter, turns: number): Promise<number> {
  let events = 0;
  const ms = await time(async () => {
    for (let turn = 0; turn < turns; turn += 1) {
      for (const draft of turnDrafts(writer.session.lastSeq + 1)) {
        await writer.append([draft]);
        events += 1;
      }
    }
  });
  await writer.close();
  return events / (ms / 1000);
}

/** Events/s appending `count` single events through an open writer to a log of `existing`. */
async function appendRate(store: SessionStore, sessionId: string, turns: number): Promise<number> {
  const writer = await store.openWriter(sessionId);
  // Close the open turn first (the large log ends inside one).
  const { normalize } = await import("@tapedeck/session");
  await writer.append(normalize(writer.session));
  return appendTurns(writer, turns);
}

async function main(): Promise<void> {
  console.log(`session-store bench: large log of ~${largeEvents} events, in ${root}`);
  await benchAppendThroughput();
  const store = createSessionStore({ home: join(root, "large") });
  const sessionId = await largeSession(store, largeEvents);
  const { eventCount, streamed } = await benchReplay(store, sessionId);
  await benchResumeAndFork(store, sessionId, eventCount);
  await benchAppendAsLogGrows(store, sessionId, eventCount);
  if (streamed === 0) throw new Error("read() yielded nothing");
}

type Store = ReturnType<typeof createSessionStore>;

/** 1. Append throughput. */
async function benchAppendThroughput(): Promise<void> {
  const perTurn = await appendThroughput("turn", 400);
  const perEvent = await appendThroughput("every-event", 60);
  printTable("Append throughput (one event per append, writer open)", [
    { name: "fsync at turn/end (default)", value: perTurn, unit: "events/s", better: "higher" },
    {
      name: "fsync every event",
      value: perEvent,
      unit: "events/s",
      better: "higher",
      baseline: perTurn,
      baselineName: "fsync per turn",
    },
  ]);
}

/** 2. Replay of a large log against bare JSON.parse of the same lines. */
async function benchReplay(
  store: Store,
  sessionId: string,
): Promise<{ eventCount: number; streamed: number }> {
  const path = store.pathOf(sessionId);
  const size = statSync(path).size;
  const eventCount = (await store.readSession(sessionId)).lastSeq;
  const bare = await sample(5, () => {
    const text = readFileSync(path, "utf8");
    const parsed: unknown[] = [];
    for (const line of text.split("\n")) if (line !== "") parsed.push(JSON.parse(line));
    return parsed.length;
  });
  const replay = await sample(5, () => store.readSession(sessionId));
  let streamed = 0;
  const readOnly = await sample(5, async () => {
    for await (const _ of store.read(sessionId)) streamed += 1;
  });
  const replayRows: BenchRow[] = [
    {
      name: `readSession (${eventCount} events, ${(size / 1e6).toFixed(1)} MB)`,
      value: median(replay),
      unit: "ms",
      better: "lower",
      baseline: median(bare),
      baselineName: "readFile + split + JSON.parse",
      goal: "≥ 0.5×",
    },
    {
      name: "read() stream (parse + zod, no replay)",
      value: median(readOnly),
      unit: "ms",
      better: "lower",
      baseline: median(bare),
      baselineName: "readFile + split + JSON.parse",
    },
  ];
  printTable("Replay of a large log (median of 5)", replayRows);
  return { eventCount, streamed };
}

/** 3. Resume and fork of the large session. */
async function benchResumeAndFork(
  store: Store,
  sessionId: string,
  eventCount: number,
): Promise<void> {
  const path = store.pathOf(sessionId);
  const before = statSync(path).size;
  const resumeTimes = await sample(3, () => store.resumeSession(sessionId));
  const afterResume = statSync(path).size;
  const resumed = await store.resumeSession(sessionId);
  const writer = await store.openWriter(sessionId);
  const runId = uuidv7();
  const written: SessionEvent[] = await writer.append([
    ...resumed.synthesizedEvents,
    benchTurnStart(runId, true),
    { type: "message", runId, role: "user", content: "continue" },
  ]);
  await writer.close();
  const continued = statSync(path).size - afterResume;
  const expectedBytes = written.reduce(
    (sum, event) => sum + Buffer.byteLength(`${JSON.stringify(event)}\n`),
    0,
  );
  const forkTimes: number[] = [];
  let forkBytes = 0;
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    const child = await store.fork(sessionId, { atSeq: Math.floor(eventCount / 2) });
    forkTimes.push(performance.now() - started);
    forkBytes = statSync(store.pathOf(child.sessionId)).size;
  }
  forkTimes.sort((a, b) => a - b);
  printTable("Resume and fork of the large session", [
    { name: "resumeSession", value: median(resumeTimes), unit: "ms", better: "lower" },
    {
      name: "bytes written by resumeSession",
      value: afterResume - before,
      unit: "B",
      better: "lower",
      goal: "0",
    },
    {
      name: `bytes written continuing (${written.length} new events)`,
      value: continued,
      unit: "B",
      better: "lower",
      baseline: expectedBytes,
      baselineName: "the new events' lines",
      goal: "= 1.00×",
    },
    { name: "fork (replays the parent)", value: median(forkTimes), unit: "ms", better: "lower" },
    { name: "bytes written by fork", value: forkBytes, unit: "B", better: "lower", goal: "< 1 KB" },
  ]);
}

/** 4. Appending must not slow down as the log grows. */
async function benchAppendAsLogGrows(
  store: Store,
  sessionId: string,
  eventCount: number,
): Promise<void> {
  const smallStore = createSessionStore({ home: join(root, "small") });
  const small = await largeSession(smallStore, 1000);
  const rateSmall = await appendRate(smallStore, small, 150);
  const rateLarge = await appendRate(store, sessionId, 150);
  const openSmall = await sample(3, async () => (await smallStore.openWriter(small)).close());
  // The writers above closed cleanly, so each log has a kept tail: openWriter trusts it.
  const openLarge = await sample(3, async () => (await store.openWriter(sessionId)).close());
  const tails = join(store.home, "tails");
  const replayLarge = await sample(3, async () => {
    rmSync(tails, { recursive: true, force: true });
    await (await store.openWriter(sessionId)).close();
  });
  printTable("Append as the log grows (writer open; fsync per turn)", [
    { name: "append into a 1k-event log", value: rateSmall, unit: "events/s", better: "higher" },
    {
      name: `append into a ${Math.round(eventCount / 1000)}k-event log`,
      value: rateLarge,
      unit: "events/s",
      better: "higher",
      baseline: rateSmall,
      baselineName: "1k-event log",
      goal: "≈ 1×",
    },
    {
      name: "openWriter + close (lock + kept tail), 1k log",
      value: median(openSmall),
      unit: "ms",
      better: "lower",
    },
    {
      name: `openWriter + close (lock + kept tail), ${Math.round(eventCount / 1000)}k log`,
      value: median(openLarge),
      unit: "ms",
      better: "lower",
      baseline: median(replayLarge),
      baselineName: "the same with no kept tail (replay)",
    },
  ]);
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
