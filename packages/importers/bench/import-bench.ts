/**
 * `pnpm bench` for the importers: import throughput (MB of source per second, everything from
 * reading the files to fsynced logs in a fresh home) against reading the same files and
 * `JSON.parse`-ing them line by line (an opencode export: the whole document), the least any
 * importer has to do. Goal ≥ 0.3×.
 *
 * The corpus is generated (deterministic) in the shape of real transcripts: Claude Code sessions
 * with text, thinking and tool round trips, Codex rollouts, pi sessions, `opencode export`
 * documents; a few large tool outputs.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile, printTable, sample, time } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { build } from "tsup";
import type { WorkerEntry } from "../src/import-pool";
import { defaultWorkerCount } from "../src/import-run";
import { type ImportSource, importSessions } from "../src/index";

const SESSIONS = Number(process.env.IMPORT_BENCH_SESSIONS ?? 60);
const TURNS = 20;
/** Paired runs of the baseline and the import per source (even: the order alternates). */
const PAIRS = Number(process.env.IMPORT_BENCH_PAIRS ?? 6);
const root = mkdtempSync(join(tmpdir(), "tapedeck-import-bench-"));
const text = (seed: number, words: number) =>
  Array.from({ length: words }, (_, index) => `word${(seed * 31 + index * 7) % 997}`).join(" ");
const at = (session: number, step: number) =>
  new Date(Date.UTC(2026, 0, 1, 0, session, 0) + step * 1000).toISOString();
const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");

function claude(dir: string, session: number): void {
  const id = `00000000-0000-4000-8000-${String(session).padStart(12, "0")}`;
  const common = {
    sessionId: id,
    cwd: "/work/project",
    isSidechain: false,
    version: "2.1.0",
    gitBranch: "main",
    userType: "external",
  };
  const entries: unknown[] = [];
  let step = 0;
  for (let turn = 0; turn < TURNS; turn += 1) {
    const base = { ...common, timestamp: at(session, step++) };
    entries.push({
      ...base,
      type: "user",
      uuid: `${id}-${step}`,
      message: { role: "user", content: text(turn, 30) },
    });
    entries.push({
      ...base,
      type: "assistant",
      uuid: `${id}-${step}t`,
      message: {
        id: `m${turn}`,
        model: "claude-sonnet-4-5",
        role: "assistant",
        content: [{ type: "thinking", thinking: text(turn + 1, 80) }],
        usage: { input_tokens: 10, output_tokens: 20 },
      },
    });
    entries.push({
      ...base,
      type: "assistant",
      uuid: `${id}-${step}u`,
      message: {
        id: `m${turn}`,
        model: "claude-sonnet-4-5",
        role: "assistant",
        content: [
          { type: "tool_use", id: `toolu_${turn}`, name: "Bash", input: { command: `ls ${turn}` } },
        ],
      },
    });
    entries.push({
      ...base,
      type: "user",
      uuid: `${id}-${step}r`,
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: `toolu_${turn}`,
            content: text(turn + 2, turn % 5 === 0 ? 3000 : 200),
          },
        ],
      },
      toolUseResult: { stdout: "…" },
    });
    entries.push({
      ...base,
      type: "assistant",
      uuid: `${id}-${step}a`,
      message: {
        id: `n${turn}`,
        model: "claude-sonnet-4-5",
        role: "assistant",
        content: [{ type: "text", text: text(turn + 3, 120) }],
      },
    });
  }
  const project = join(dir, "claude-code", "-work-project");
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, `${id}.jsonl`), jsonl(entries));
}

function codex(dir: string, session: number): void {
  const id = `0194aaaa-0000-7000-8000-${String(session).padStart(12, "0")}`;
  const entries: unknown[] = [
    {
      timestamp: at(session, 0),
      type: "session_meta",
      payload: { id, timestamp: at(session, 0), cwd: "/work/project", instructions: text(1, 400) },
    },
  ];
  for (let turn = 0; turn < TURNS; turn += 1) {
    const timestamp = at(session, turn + 1);
    entries.push({
      timestamp,
      type: "response_item",
      payload: {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: text(turn, 30) }],
      },
    });
    entries.push({
      timestamp,
      type: "event_msg",
      payload: { type: "user_message", message: text(turn, 30) },
    });
    entries.push({
      timestamp,
      type: "turn_context",
      payload: { cwd: "/work/project", model: "gpt-5-codex" },
    });
    entries.push({
      timestamp,
      type: "response_item",
      payload: {
        type: "reasoning",
        summary: [{ type: "summary_text", text: text(turn, 60) }],
        encrypted_content: "x".repeat(800),
      },
    });
    entries.push({
      timestamp,
      type: "response_item",
      payload: {
        type: "function_call",
        name: "shell",
        arguments: JSON.stringify({ command: ["ls", String(turn)] }),
        call_id: `call_${turn}`,
      },
    });
    entries.push({
      timestamp,
      type: "response_item",
      payload: {
        type: "function_call_output",
        call_id: `call_${turn}`,
        output: text(turn + 2, turn % 5 === 0 ? 3000 : 200),
      },
    });
    entries.push({
      timestamp,
      type: "response_item",
      payload: {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: text(turn + 3, 120) }],
      },
    });
    entries.push({
      timestamp,
      type: "event_msg",
      payload: { type: "token_count", info: { total: turn } },
    });
  }
  const day = join(dir, "codex", "2026", "01", "01");
  mkdirSync(day, { recursive: true });
  writeFileSync(join(day, `rollout-2026-01-01T00-00-00-${id}.jsonl`), jsonl(entries));
}

function pi(dir: string, session: number): void {
  const id = `bbbbbbbb-0000-4000-8000-${String(session).padStart(12, "0")}`;
  const entries: unknown[] = [
    { type: "session", version: 3, id, timestamp: at(session, 0), cwd: "/work/project" },
  ];
  let parent: string | null = null;
  const add = (message: object) => {
    const entryId = (entries.length + 0x10000000).toString(16);
    entries.push({
      type: "message",
      id: entryId,
      parentId: parent,
      timestamp: at(session, entries.length),
      message,
    });
    parent = entryId;
  };
  for (let turn = 0; turn < TURNS; turn += 1) {
    add({ role: "user", content: text(turn, 30) });
    add({
      role: "assistant",
      content: [
        { type: "thinking", thinking: text(turn, 80) },
        { type: "toolCall", id: `t${turn}`, name: "bash", arguments: { command: `ls ${turn}` } },
      ],
      provider: "anthropic",
      model: "claude-opus-4-5",
      stopReason: "toolUse",
      usage: { input: 1, output: 2 },
    });
    add({
      role: "toolResult",
      toolCallId: `t${turn}`,
      toolName: "bash",
      content: [{ type: "text", text: text(turn + 2, turn % 5 === 0 ? 3000 : 200) }],
      isError: false,
    });
    add({
      role: "assistant",
      content: [{ type: "text", text: text(turn + 3, 120) }],
      provider: "anthropic",
      model: "claude-opus-4-5",
      stopReason: "stop",
    });
  }
  const folder = join(dir, "pi", "--work-project--");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `2026-01-01T00-00-00-000Z_${id}.jsonl`), jsonl(entries));
}

/** An `opencode export` document (`{info, messages: [{info, parts}]}`), written as it writes it. */
function opencode(dir: string, session: number): void {
  const id = `ses_${String(session).padStart(26, "0")}`;
  const created = Date.UTC(2026, 0, 1, 0, session);
  const messages: unknown[] = [];
  const message = (role: string, turn: number, step: number, parts: object[]) => {
    const messageId = `msg_${session}_${turn}_${step}`;
    messages.push({
      info: {
        id: messageId,
        sessionID: id,
        role,
        time: { created: created + turn * 10_000 + step },
        ...(role === "assistant"
          ? {
              modelID: "claude-sonnet-4-5",
              providerID: "anthropic",
              path: { cwd: "/work/project", root: "/work/project" },
              cost: 0.01,
              tokens: { input: 10, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
            }
          : {}),
      },
      parts: parts.map((part, index) => ({
        id: `prt_${messageId}_${index}`,
        sessionID: id,
        messageID: messageId,
        ...part,
      })),
    });
  };
  for (let turn = 0; turn < TURNS; turn += 1) {
    message("user", turn, 0, [{ type: "text", text: text(turn, 30) }]);
    message("assistant", turn, 1, [
      { type: "step-start", snapshot: "9b057a6eac7b8ba44713000d0d9448ab5dac67e4" },
      { type: "reasoning", text: text(turn + 1, 80), time: { start: created, end: created } },
      {
        type: "tool",
        callID: `call_${turn}`,
        tool: "bash",
        state: {
          status: "completed",
          input: { command: `ls ${turn}` },
          output: text(turn + 2, turn % 5 === 0 ? 3000 : 200),
          title: `ls ${turn}`,
          metadata: {},
          time: { start: created, end: created },
        },
      },
      { type: "step-finish", reason: "tool-calls", cost: 0.01 },
    ]);
    message("assistant", turn, 2, [
      { type: "text", text: text(turn + 3, 120), time: { start: created, end: created } },
      { type: "step-finish", reason: "stop", cost: 0.01 },
    ]);
  }
  const folder = join(dir, "opencode");
  mkdirSync(folder, { recursive: true });
  const info = { id, directory: "/work/project", title: `session ${session}`, time: { created } };
  writeFileSync(join(folder, `${id}.json`), JSON.stringify({ info, messages }, null, 2));
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** CPU milliseconds (user + system) since `start`. */
function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * The baseline: read each file, split it into lines, JSON.parse each line (an opencode export is
 * one JSON document: JSON.parse of the file).
 */
function parseOnly(files: readonly string[]): number {
  let count = 0;
  for (const file of files) {
    if (file.endsWith(".json")) {
      JSON.parse(readFileSync(file, "utf8"));
      count += 1;
      continue;
    }
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line !== "") {
        JSON.parse(line);
        count += 1;
      }
    }
  }
  return count;
}

/**
 * The worker bundled as the CLI bundles it (`apps/agent-bin/tsup.config.ts`): under tsx the
 * default entry would load every module through tsx's transform, a start-up no user pays.
 */
async function bundledWorker(): Promise<WorkerEntry> {
  // Under node_modules (ignored everywhere), where the bundle still finds better-sqlite3.
  const outDir = fileURLToPath(new URL("../node_modules/.cache/import-bench", import.meta.url));
  await build({
    entry: { "import-worker": fileURLToPath(new URL("../src/import-worker.ts", import.meta.url)) },
    outDir,
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    platform: "node",
    target: "node20",
    noExternal: [/^(?!better-sqlite3$)/],
    external: ["better-sqlite3"],
    splitting: false,
    silent: true,
    config: false,
  });
  return { url: new URL(`file://${join(outDir, "import-worker.mjs")}`) };
}
const workerEntry = await bundledWorker();

const corpus = join(root, "corpus");
for (let session = 0; session < SESSIONS; session += 1) {
  claude(corpus, session);
  codex(corpus, session);
  pi(corpus, session);
  opencode(corpus, session);
}

const rows = [];
const baselineName = "read + JSON.parse";
for (const source of ["claude-code", "codex", "pi", "opencode"] as ImportSource[]) {
  const dir = join(corpus, source);
  const files = filesUnder(dir);
  const megabytes = files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024 / 1024;
  // Paired samples in the order A B B A A B …: on a shared machine the load drifts and both sides
  // of each ratio see about the same; each side follows the other (and its garbage) equally often.
  const baseline: number[] = [];
  const baselineCpu: number[] = [];
  const ours: number[] = [];
  const oursCpu: number[] = [];
  const other: number[] = [];
  let workers = 0;
  // The other way to run it: on workers when the default runs on this thread, or on this thread
  // alone when the default uses workers (the importer's own rule decides which).
  const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
  const pooledByDefault = defaultWorkerCount(bytes, files.length) > 0;
  const otherWorkers = pooledByDefault ? 0 : Math.max(1, availableParallelism() - 1);
  let otherRan = 0;
  const measureBaseline = async () => {
    const start = process.cpuUsage();
    baseline.push(await time(() => parseOnly(files)));
    baselineCpu.push(cpuMs(start));
  };
  /** The default import (on worker threads when big enough), or the other way. */
  const measureImport = async (run: number, theOther = false) => {
    const home = join(root, `home-${source}-${run}${theOther ? "-other" : ""}`);
    const start = process.cpuUsage();
    let summary: Awaited<ReturnType<typeof importSessions>> | undefined;
    const took = await time(async () => {
      summary = await importSessions({
        store: createSessionStore({ home }),
        source,
        paths: [dir],
        workerEntry,
        ...(theOther ? { workers: otherWorkers } : {}),
      });
    });
    if (summary?.counts.created !== SESSIONS)
      throw new Error(`${source}: ${JSON.stringify(summary?.counts)}`);
    if (theOther) {
      other.push(took);
      otherRan = summary.workers;
      return;
    }
    ours.push(took);
    // Every thread's CPU time: the workers' too.
    oursCpu.push(cpuMs(start));
    workers = summary.workers;
  };
  for (let run = 0; run < PAIRS; run += 1) {
    if (run % 2 === 0) {
      await measureBaseline();
      await measureImport(run);
      await measureImport(run, true);
    } else {
      await measureImport(run, true);
      await measureImport(run);
      await measureBaseline();
    }
  }
  other.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  ours.sort((a, b) => a - b);
  rows.push({
    name: `${source}: import ${SESSIONS} sessions (${megabytes.toFixed(1)} MB), ${workers} workers + this thread`,
    value: megabytes / (percentile(ours, 50) / 1000),
    unit: "MB/s",
    baseline: megabytes / (percentile(baseline, 50) / 1000),
    baselineName,
    better: "higher" as const,
    goal: "≥ 0.3×",
  });
  rows.push({
    name: `${source}: import with workers: ${otherWorkers} (${otherRan} started) + this thread`,
    value: megabytes / (percentile(other, 50) / 1000),
    unit: "MB/s",
    baseline: megabytes / (percentile(baseline, 50) / 1000),
    baselineName,
    better: "higher" as const,
  });
  // CPU time of all threads: what the import costs without the waits for fsync (and for other
  // processes); worker threads add their start-up and the messages, never save CPU.
  rows.push({
    name: `${source}: import, CPU time only`,
    value: megabytes / (median(oursCpu) / 1000),
    unit: "MB/s",
    baseline: megabytes / (median(baselineCpu) / 1000),
    baselineName,
    better: "higher" as const,
  });
  // Re-import of an unchanged folder: what a scheduled `tapedeck import` costs.
  const home = join(root, `home-${source}-0`);
  const again = await sample(3, () =>
    importSessions({ store: createSessionStore({ home }), source, paths: [dir], workerEntry }),
  );
  rows.push({
    name: `${source}: re-import, nothing new`,
    value: megabytes / (percentile(again, 50) / 1000),
    unit: "MB/s",
    baseline: megabytes / (percentile(baseline, 50) / 1000),
    baselineName,
    better: "higher" as const,
  });
}
printTable("tapedeck import: throughput (median)", rows);
if (process.env.KEEP_CORPUS === undefined) rmSync(root, { recursive: true, force: true });
else console.log(root);
