/**
 * The bench's generated corpus (deterministic), in the shape of real transcripts: Claude Code
 * sessions with text, thinking and tool round trips, Codex rollouts, pi sessions, `opencode
 * export` documents; a few large tool outputs. Shared by `import-bench.ts` and `log-digests.ts`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const TURNS = 20;
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

/** Writes `sessions` sessions of every source under `dir/<source>/`. */
export function writeCorpus(dir: string, sessions: number): void {
  for (let session = 0; session < sessions; session += 1) {
    claude(dir, session);
    codex(dir, session);
    pi(dir, session);
    opencode(dir, session);
  }
}
