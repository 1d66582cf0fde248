import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SessionEventDraft } from "@tapedeck/session";
import { benchModelRequest, eventLogBuilder } from "@tapedeck/session/testing";

const words = [
  "kettle",
  "teapot",
  "whistle",
  "boiler",
  "thermostat",
  "timer",
  "steam",
  "spout",
  "handle",
  "lid",
  "parser",
  "lexer",
  "token",
  "cursor",
  "index",
  "session",
  "replay",
  "compaction",
  "fork",
  "lineage",
  "refactor",
  "test",
  "coverage",
  "build",
  "deploy",
  "config",
  "router",
  "schema",
  "migration",
  "cache",
];
const chinese = [
  "茶壶模拟器",
  "加热模块",
  "计时器",
  "鸣笛",
  "用户登录",
  "数据库迁移",
  "缓存失效",
  "单元测试",
];

function sentence(seed: number, length: number, withChinese = true): string {
  const parts: string[] = [];
  let x = seed;
  for (let index = 0; index < length; index++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const cjk = withChinese && x % 11 === 0;
    parts.push(cjk ? (chinese[x % chinese.length] ?? "") : (words[x % words.length] ?? ""));
  }
  return parts.join(" ");
}

/** A `model/request` of the generated logs (gpt-4.1-mini, fixed digests). */
export function modelRequest(
  runId: string,
  requestId: string,
  inputItems: number[],
): SessionEventDraft {
  return benchModelRequest(runId, requestId, inputItems, "sha256:bench");
}

/**
 * Writes one session of about `events` events into `<home>/sessions`: turns of user message,
 * model request/response, a tool call with output, streamed chunks and the assistant answer.
 * Returns the session id. `chinese: false` keeps Chinese words out of the text; `cwd` is the
 * recorded working directory (a run continuing the session works there, so it must exist).
 */
export function writeSession(
  home: string,
  events: number,
  seed = 1,
  start = new Date("2026-01-01T00:00:00Z"),
  options: { chinese?: boolean; cwd?: string } = {},
): string {
  const chinese = options.chinese ?? true;
  const log = eventLogBuilder({
    cwd: options.cwd ?? "/bench/project",
    workspaceId: "/bench/project",
    start,
  });
  log.system("You are a benchmark agent.");
  let turn = 0;
  while (log.events.length < events - 12) {
    turn += 1;
    log.turn().user(`Turn ${turn}: ${sentence(seed * 7919 + turn, 12, chinese)}`);
    const runId = log.events.at(-1)?.runId ?? "";
    const requestId = `req-${turn}`;
    log.push(modelRequest(runId, requestId, [1]));
    log.push({
      type: "model/response",
      runId,
      requestId,
      finishReason: "tool_calls",
      usage: { inputTokens: 100, outputTokens: 10 },
    });
    log.call("read_file", { path: `src/file-${turn}.ts` });
    log.output(sentence(seed * 31 + turn, 60, chinese));
    const answer = sentence(seed * 131 + turn, 20, chinese);
    const answerId = `req-${turn}-b`;
    log.push(modelRequest(runId, answerId, [1]));
    const pieces = answer.split(" ");
    pieces.forEach((piece, index) => {
      if (index < 4)
        log.push({
          type: "assistant/chunk",
          runId,
          requestId: answerId,
          index,
          delta: { text: `${piece} ` },
        });
    });
    log.push({
      type: "model/response",
      runId,
      requestId: answerId,
      finishReason: "stop",
      usage: { inputTokens: 200, outputTokens: 20 },
    });
    log.assistant(answer);
    log.end();
  }
  const dir = path.join(home, "sessions");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${log.header.sessionId}.jsonl`), log.jsonl());
  return log.header.sessionId;
}
