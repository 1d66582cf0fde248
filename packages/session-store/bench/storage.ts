/**
 * `pnpm bench` for issue #30 (storage): bytes on disk after `compact` for an output/image-heavy
 * home and a text-only one, readSession of a compressed large log against a bare parse of the
 * plain file, resume (writer open) of a cold log against a plain one, and a 1 MB tool output
 * written to a blob against appending it inline.
 *
 * TAPEDECK_BENCH_EVENTS (default 100000) sets the size of the large log;
 * TAPEDECK_BENCH_STORAGE_SESSIONS (default 40) the sessions of each generated home;
 * TAPEDECK_BENCH_BLOB_PAIRS (default 21) the pairs of 1 MB outputs;
 * TAPEDECK_BENCH_RESUME_PAIRS (default 11) the pairs of resumes (cold, plain).
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { isolateBenchTmpdir, printTable, sample } from "@tapedeck/bench";
import { type SessionEventDraft, uuidv7 } from "@tapedeck/session";
import { benchTurnStart } from "@tapedeck/session/testing";
import { createSessionStore, type SessionStore } from "../src/index";

const largeEvents = Number(process.env.TAPEDECK_BENCH_EVENTS ?? 100_000);
const sessions = Number(process.env.TAPEDECK_BENCH_STORAGE_SESSIONS ?? 40);
const resumePairs = Number(process.env.TAPEDECK_BENCH_RESUME_PAIRS ?? 11);
const root = isolateBenchTmpdir("tapedeck-storage-bench-");

function median(values: readonly number[]): number {
  return values[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** Bytes of every file under `path`. */
function bytesUnder(path: string): number {
  let total = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const child = join(path, entry.name);
    total += entry.isDirectory() ? bytesUnder(child) : statSync(child).size;
  }
  return total;
}

/** Log-like text of about `bytes` bytes (build output, file listings: compressible as real ones). */
function outputText(bytes: number, seed: number, wide = false): string {
  const lines: string[] = [];
  let length = 0;
  // `wide`: a test runner's marks and a translated message, as outputs often hold (UTF-16 text
  // in V8, not Latin-1: what a payload check that scans the string pays for).
  const mark = wide ? (seed % 2 === 0 ? " ✓ 完成" : " ✗ — 失败") : "";
  for (let index = 0; length < bytes; index += 1) {
    const line = `[${seed}:${index}] src/module-${(index * 31 + seed) % 997}/file-${index % 113}.ts:${(index * 7) % 400} ${index % 3 === 0 ? "warning" : "info"} ${(index * 2654435761 + seed).toString(36)} done in ${(index % 97) / 10}ms${mark}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** A base64 "screenshot": mostly flat regions (as UI screenshots are), a few noisy ones. */
function screenshot(seed: number, bytes: number): string {
  const raw = Buffer.alloc(bytes);
  for (let index = 0; index < bytes; index += 1) {
    raw[index] =
      index % 4096 < 300 ? (index * 2654435761 + seed) & 0xff : (seed + (index >> 12)) & 0xff;
  }
  return `data:image/png;base64,${raw.toString("base64")}`;
}

/** Something that appends: a store (one-shot) or an open writer. */
type Appender = (drafts: SessionEventDraft[]) => Promise<{ seq: number }[]>;

/** Appends one turn: a question, a call, its output (the payload), an answer. */
async function appendTurn(append: Appender, payload: string, prompt: string): Promise<void> {
  const runId = uuidv7();
  const callId = `call_${runId}`;
  const opened = await append([
    benchTurnStart(runId),
    { type: "message", runId, role: "user", content: prompt },
    { type: "function_call", runId, callId, name: "run_command", arguments: '{"command":"make"}' },
  ]);
  await append([
    {
      type: "function_call_output",
      runId,
      callId,
      output: payload,
      isError: false,
      sourceEventSeqs: [opened[2]!.seq],
    },
    { type: "message", runId, role: "assistant", content: `Done: ${prompt.slice(0, 60)}` },
    { type: "turn/end", runId, status: "completed" },
  ]);
}

/** Writes a home; returns its bytes before and after `compact` (every log cold). */
async function homeRatio(name: string, payloads: (session: number, turn: number) => string) {
  const plain = createSessionStore({
    home: join(root, `${name}-plain`),
    blobThreshold: Number.POSITIVE_INFINITY,
  });
  const compacted = createSessionStore({ home: join(root, `${name}-blobs`) });
  for (let session = 0; session < sessions; session += 1) {
    const ids: string[] = [];
    for (const store of [plain, compacted]) {
      ids.push(
        (
          await store.create({
            cwd: root,
            seed: [
              {
                type: "message",
                runId: "seed",
                role: "system",
                content: "You are a coding agent.",
              },
            ],
          })
        ).sessionId,
      );
    }
    for (let index = 0; index < 6; index += 1) {
      const payload = payloads(session, index);
      const prompt = `Task ${session}.${index}: run the build and tell me what failed in module ${index}.`;
      await appendTurn((drafts) => plain.append(ids[0]!, drafts), payload, prompt);
      await appendTurn((drafts) => compacted.append(ids[1]!, drafts), payload, prompt);
    }
  }
  const before = bytesUnder(join(root, `${name}-plain`, "sessions"));
  const started = performance.now();
  for (const id of await compacted.sessionIds()) await compacted.compact(id);
  const compactMs = performance.now() - started;
  const after =
    bytesUnder(join(root, `${name}-blobs`, "sessions")) +
    bytesUnder(join(root, `${name}-blobs`, "blobs"));
  return { before, after, compactMs };
}

async function main(): Promise<void> {
  // 1. Bytes on disk after compact.
  const heavy = await homeRatio("heavy", (session, index) =>
    index % 3 === 2
      ? screenshot(session % 5, 200_000 + ((session * 7919 + index) % 5) * 100_000)
      : outputText(100_000 + ((session * 31 + index * 17) % 20) * 95_000, session * 10 + index),
  );
  const text = await homeRatio("text", (session, index) =>
    outputText(2_000 + ((session + index) % 7) * 1_000, session * 10 + index),
  );
  printTable(`Bytes on disk after compact (${sessions} sessions of 6 turns each)`, [
    {
      name: "output/image-heavy home",
      value: heavy.after,
      unit: "B",
      better: "lower",
      baseline: heavy.before,
      baselineName: `plain logs; kept ${(heavy.after / heavy.before).toFixed(3)}×`,
      goal: "≤ 0.15× (ratio ≥ 6.67)",
    },
    {
      name: "text-only home",
      value: text.after,
      unit: "B",
      better: "lower",
      baseline: text.before,
      baselineName: `plain logs; kept ${(text.after / text.before).toFixed(3)}×`,
      goal: "≤ 0.35× (ratio ≥ 2.86)",
    },
    {
      name: "compact of the output/image-heavy home (per MB of plain logs)",
      value: heavy.compactMs / (heavy.before / 1e6),
      unit: "ms",
      better: "lower",
    },
    {
      name: "compact of the text-only home (per MB of plain logs)",
      value: text.compactMs / (text.before / 1e6),
      unit: "ms",
      better: "lower",
    },
  ]);

  // 2. readSession of a compressed large log against a bare parse of the plain file.
  const store = createSessionStore({ home: join(root, "large") });
  const sessionId = await largeSession(store, largeEvents);
  const path = store.pathOf(sessionId);
  const bare = await sample(5, () => {
    const parsed: unknown[] = [];
    for (const line of readFileSync(path, "utf8").split("\n"))
      if (line !== "") parsed.push(JSON.parse(line));
    return parsed.length;
  });
  const plainRead = await sample(5, () => store.readSession(sessionId));
  await store.compact(sessionId);
  const coldRead = await sample(5, () => store.readSession(sessionId));
  // Buffers held while the cold log is read as a stream (decompressed whole, it held all of it).
  const buffers = () => process.memoryUsage().external + process.memoryUsage().arrayBuffers;
  const buffersBefore = buffers();
  let buffersPeak = buffersBefore;
  let streamed = 0;
  for await (const _ of store.read(sessionId)) {
    streamed += 1;
    if (streamed % 1000 === 0) buffersPeak = Math.max(buffersPeak, buffers());
  }
  const plainBytes = store.entry(sessionId)?.size ?? 0;
  // Resume of the cold log against a plain twin of the same size, paired: each pair times both
  // on the same load, in alternating order; the ratio is the median of the pairs' ratios.
  const twin = await largeSession(store, largeEvents);
  const resumeOnly = async (id: string) => (await store.openWriter(id)).close();
  const resumeTurn = async (id: string) => {
    const writer = await store.openWriter(id);
    await appendTurn((drafts) => writer.append(drafts), outputText(400, 1), "one more question");
    await writer.close();
  };
  const opens = await paired(
    resumePairs,
    () => resumeOnly(sessionId),
    () => resumeOnly(twin),
  );
  const turns = await paired(
    resumePairs,
    () => resumeTurn(sessionId),
    () => resumeTurn(twin),
  );
  const cold = store.entry(sessionId);
  console.log(
    `\nresume of the cold log (${cold?.size} bytes, ${cold?.compressed ? "compressed" : "plain"}) / plain (${resumePairs} pairs, paired ratios): open + close ${opens.ratio.toFixed(2)}× (min ${opens.ratios[0]?.toFixed(2)}, max ${opens.ratios.at(-1)?.toFixed(2)}); with one turn ${turns.ratio.toFixed(2)}×`,
  );
  printTable(`Cold (compressed) large log (${largeEvents} events)`, [
    {
      name: "readSession of the compressed log",
      value: median(coldRead),
      unit: "ms",
      better: "lower",
      baseline: median(bare),
      baselineName: "readFile + split + JSON.parse, plain",
      goal: "≥ 0.5×",
    },
    {
      name: "buffers held by read() of the compressed log (peak growth)",
      value: Math.max(0, buffersPeak - buffersBefore),
      unit: "B",
      better: "lower",
      baseline: plainBytes,
      baselineName: "the plain log's size (what decompressing whole held)",
      goal: "bounded: ≤ 8 MB at any size (a few 1 MB chunks and zstd's window)",
    },
    {
      name: "readSession of the plain log",
      value: median(plainRead),
      unit: "ms",
      better: "lower",
      baseline: median(bare),
      baselineName: "readFile + split + JSON.parse, plain",
    },
    {
      name: "resume (writer open + close) of the cold log",
      value: median(opens.first),
      unit: "ms",
      better: "lower",
      baseline: median(opens.second),
      baselineName: "the plain log",
      goal: `≥ 0.5× (≤ 2× the time); paired ${opens.ratio.toFixed(2)}× the time`,
    },
    {
      name: "resume then one turn (open, append, turn/end fsync, close), cold",
      value: median(turns.first),
      unit: "ms",
      better: "lower",
      baseline: median(turns.second),
      baselineName: "the plain log",
      goal: `paired ${turns.ratio.toFixed(2)}× the time`,
    },
  ]);

  // 3. A 1 MB tool output to a blob against appending it inline, paired: the same output to each
  //    home in turn. Two shapes: the whole turn's end in the output's append (the blob's fsyncs
  //    and the log's run together), and the agent's (the output alone, then the model, then the
  //    answer and turn/end; the pause stands for the model and is not timed).
  const inline = createSessionStore({
    home: join(root, "inline"),
    blobThreshold: Number.POSITIVE_INFINITY,
  });
  const blobbed = createSessionStore({ home: join(root, "blobbed") });
  const pairs = Number(process.env.TAPEDECK_BENCH_BLOB_PAIRS ?? 21);
  const oneAppend = { inline: [] as number[], blob: [] as number[] };
  const agentShape = { inline: [] as number[], blob: [] as number[] };
  const wideShape = { inline: [] as number[], blob: [] as number[] };
  for (let index = 0; index < pairs; index += 1) {
    // Flat strings, each output new to the blob store (a concatenation would time its flattening).
    const outputs = [
      outputText(1 << 20, 1000 + index),
      outputText(1 << 20, 5000 + index),
      outputText(1 << 20, 9000 + index, true),
    ];
    const homes = [
      [inline, "inline"],
      [blobbed, "blob"],
    ] as const;
    // Alternating which goes first: a load that rises or falls within a pair favours neither.
    for (const [target, key] of index % 2 === 0 ? homes : [...homes].reverse()) {
      oneAppend[key].push(await outputTurn(target, outputs[0]!, false));
      agentShape[key].push(await outputTurn(target, outputs[1]!, true));
      wideShape[key].push(await outputTurn(target, outputs[2]!, true));
    }
  }
  const pairedRatio = (times: { inline: number[]; blob: number[] }) =>
    median(times.blob.map((blob, index) => blob / times.inline[index]!).sort((a, b) => a - b));
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const row = (name: string, times: { inline: number[]; blob: number[] }, goal = "≥ 1×") => ({
    name,
    value: median(sorted(times.blob)),
    unit: "ms",
    better: "lower" as const,
    baseline: median(sorted(times.inline)),
    baselineName: `inline in the log; paired ratio of times ${pairedRatio(times).toFixed(2)}`,
    goal,
  });
  printTable(`A 1 MB tool output to a blob against inline (median of ${pairs} pairs)`, [
    // The agent writes each output in its own append (`tool-calls.ts`): shown, not its shape.
    row("output, answer and turn/end in one append", oneAppend, "≥ 1× (not the agent's shape)"),
    row("the agent's: the output's append + (model) + answer and turn/end", agentShape),
    row("the agent's, an output with ✓, — and CJK text (not Latin-1)", wideShape),
  ]);
}

/**
 * Times one turn around a 1 MB `output` in a new session of `target` (writer open; the call
 * appended, then a 20 ms pause for the tool's run, not timed): in one append with the answer and
 * turn/end, or (`agent`) on its own, then a 20 ms pause (the model, not timed), then the answer
 * and turn/end. Returns the appends' milliseconds.
 */
async function outputTurn(target: SessionStore, output: string, agent: boolean): Promise<number> {
  const { sessionId } = await target.create({ cwd: root });
  const writer = await target.openWriter(sessionId);
  const runId = uuidv7();
  const callId = `call_${runId}`;
  const [, , call] = await writer.append([
    benchTurnStart(runId),
    { type: "message", runId, role: "user", content: "build" },
    { type: "function_call", runId, callId, name: "run_command", arguments: '{"command":"make"}' },
  ]);
  const result: SessionEventDraft = {
    type: "function_call_output",
    runId,
    callId,
    output,
    isError: false,
    sourceEventSeqs: [call!.seq],
  };
  const end: SessionEventDraft[] = [
    { type: "message", runId, role: "assistant", content: "Done" },
    { type: "turn/end", runId, status: "completed" },
  ];
  // The tool runs between its call and its output (not timed): never nothing in the agent.
  await new Promise((resolve) => setTimeout(resolve, 20));
  let took: number;
  if (agent) {
    let started = performance.now();
    await writer.append([result]);
    took = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
    started = performance.now();
    await writer.append(end);
    took += performance.now() - started;
  } else {
    const started = performance.now();
    await writer.append([result, ...end]);
    took = performance.now() - started;
  }
  await writer.close();
  return took;
}

/** A log of about `events` events of small text turns. */
/**
 * Times `first` and `second` in `pairs` pairs (alternating which runs first); the sorted times of
 * each and the median of the pairs' ratios (first / second).
 */
async function paired(
  pairs: number,
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
): Promise<{ first: number[]; second: number[]; ratios: number[]; ratio: number }> {
  const times = { first: [] as number[], second: [] as number[] };
  const ratios: number[] = [];
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  for (let pair = 0; pair < pairs; pair += 1) {
    let a: number;
    let b: number;
    if (pair % 2 === 0) {
      a = await timed(first);
      b = await timed(second);
    } else {
      b = await timed(second);
      a = await timed(first);
    }
    times.first.push(a);
    times.second.push(b);
    ratios.push(a / b);
  }
  times.first.sort((x, y) => x - y);
  times.second.sort((x, y) => x - y);
  ratios.sort((x, y) => x - y);
  return { ...times, ratios, ratio: median(ratios) };
}

async function largeSession(target: SessionStore, events: number): Promise<string> {
  const { sessionId } = await target.create({ cwd: root });
  const writer = await target.openWriter(sessionId);
  for (let count = 0; count < events; count += 6) {
    const prompt = `Question ${count}: what does file ${count % 500} do?`;
    await appendTurn((drafts) => writer.append(drafts), outputText(400, count), prompt);
  }
  await writer.close();
  return sessionId;
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
