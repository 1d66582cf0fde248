/**
 * A synthetic but realistically shaped corpus for benchmarks: sessions of turns with streamed
 * chunks, model requests/responses, tool calls and outputs, compactions, ~6% Chinese text,
 * Zipf-distributed vocabulary. Deterministic for a seed. No I/O: callers write the logs (through a
 * store, or as files of a generated home).
 */
import type { SessionEventDraft } from "./schema";
import { type EventLogBuilder, eventLogBuilder } from "./testing";

/** A bench `turn/start`: auto approval on `openai:gpt-4.1-mini`. */
export function benchTurnStart(runId: string, resumed = false): SessionEventDraft {
  return {
    type: "turn/start",
    runId,
    policy: { approval: "auto" },
    model: "openai:gpt-4.1-mini",
    resumed,
  };
}

/**
 * A bench `model/request` on `gpt-4.1-mini` with placeholder digests (`digest`, both): what the
 * corpus writes before each model call (no input items), and what other benches write.
 */
export function benchModelRequest(
  runId: string,
  requestId: string,
  inputItems: number[] = [],
  digest = "sha256:0",
): SessionEventDraft {
  return {
    type: "model/request",
    runId,
    requestId,
    provider: "openai",
    model: "gpt-4.1-mini",
    inputDigest: digest,
    toolsDigest: digest,
    inputItems,
  };
}

/** Deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const common =
  `the a to of and in is it for that this with on be as are file code test function error
  we you can not will should use add fix run build check update change make need line value type return
  import export const let async await module package config server client request response data user
  session event query index search database table column string number array object map set list`.split(
    /\s+/,
  );
const technical =
  `kubernetes postgres sqlite redis nginx docker webpack vite typescript javascript python
  rust golang react vue svelte graphql protobuf grpc websocket oauth jwt bcrypt argon2 tokenizer
  embedding vector cosine bm25 trigram levenshtein unicode utf8 latin1 ascii base64 sha256 md5 crc32
  mutex semaphore deadlock livelock race condition backpressure throttle debounce memoize cache
  eviction lru fifo heap stack queue deque trie btree hashmap bloom filter skiplist rope gap buffer
  migration rollback schema foreign key constraint transaction isolation snapshot serializable
  compaction summary checkpoint fsync journal wal replication failover quorum raft paxos gossip`.split(
    /\s+/,
  );
const chinese =
  `数据库 连接 修复 问题 测试 函数 错误 配置 服务器 客户端 请求 响应 用户 会话 事件 查询 索引 搜索
  表格 字段 迁移 回滚 事务 缓存 队列 线程 进程 内存 性能 优化 部署 日志 监控 告警 权限 认证 加密`.split(
    /\s+/,
  );

/** Words that occur in the corpus, for picking search terms. */
export const vocabulary = { common, technical, chinese };

function makeWords(rand: () => number): string[] {
  const words: string[] = [...common, ...technical];
  // Pseudo-words fill out a long tail of rare terms.
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tor",
    "vex",
    "qui",
    "zan",
    "dul",
    "pra",
    "sho",
    "nim",
  ];
  for (let index = 0; index < 3000; index += 1) {
    let word = "";
    const length = 2 + Math.floor(rand() * 3);
    for (let part = 0; part < length; part += 1)
      word += syllables[Math.floor(rand() * syllables.length)];
    words.push(word);
  }
  return words;
}

/** A text generator with a Zipf-like word distribution and a share of Chinese sentences. */
export function textSource(seed: number, chineseShare = 0.06) {
  const rand = random(seed);
  const words = makeWords(rand);
  const pick = () => words[Math.floor(words.length * rand() ** 3)]!;
  return {
    rand,
    sentence(length: number): string {
      if (rand() < chineseShare) {
        let text = "";
        for (let index = 0; index < Math.max(2, length / 2); index += 1) {
          text += chinese[Math.floor(rand() * chinese.length)]!;
          if (rand() < 0.2) text += "，";
        }
        return `${text}。`;
      }
      const out: string[] = [];
      for (let index = 0; index < length; index += 1) out.push(pick());
      return `${out.join(" ")}.`;
    },
  };
}

/** Options of {@link generateCorpus}. */
export interface CorpusOptions {
  /** Sessions with full conversations. */
  sessions: number;
  /** Turns per conversation (average). */
  turns: number;
  /** Extra small sessions (one short turn each), to reach many sessions for list benchmarks. */
  smallSessions?: number;
  seed?: number;
  /** Time of the first session (default 2026-01-01); sessions are spread over `spanDays`. */
  start?: Date;
  /** Default 90. */
  spanDays?: number;
  /** Words per streamed `assistant/chunk` (default 1: one chunk per word). */
  chunkWords?: number;
}

/** The logs of the corpus, one complete session at a time, oldest first. */
export function* generateCorpus(options: CorpusOptions): Generator<EventLogBuilder> {
  const source = textSource(options.seed ?? 42);
  const { rand } = source;
  const total = options.sessions + (options.smallSessions ?? 0);
  const startMs = (options.start ?? new Date("2026-01-01T00:00:00.000Z")).getTime();
  const spanMs = (options.spanDays ?? 90) * 24 * 3600 * 1000;
  for (let index = 0; index < total; index += 1) {
    const big = index < options.sessions;
    const workspace = `/home/dev/project-${Math.floor(rand() * 20)}`;
    const log = eventLogBuilder({
      workspaceId: workspace,
      cwd: workspace,
      start: new Date(startMs + Math.floor((spanMs * index) / total)),
    });
    log.system("You are a coding agent. Be concise.");
    const turns = big ? Math.max(1, Math.round(options.turns * (0.5 + rand()))) : 1;
    let request = 0;
    for (let turn = 0; turn < turns; turn += 1) {
      log.turn();
      const runId = log.events[log.events.length - 1]!.runId;
      log.user(source.sentence(8 + Math.floor(rand() * 20)));
      const calls = big ? Math.floor(rand() * 3) : 0;
      for (let call = 0; call <= calls; call += 1) {
        request += 1;
        const requestId = `req_${request}`;
        const push = (draft: SessionEventDraft) => log.push(draft);
        push(benchModelRequest(runId, requestId));
        const final = call === calls;
        const answer = final ? source.sentence(10 + Math.floor(rand() * 40)) : "";
        const words = final ? answer.split(" ") : [];
        const chunkWords = options.chunkWords ?? 1;
        const chunks: string[] = [];
        for (let at = 0; at < words.length; at += chunkWords) {
          chunks.push(words.slice(at, at + chunkWords).join(" "));
        }
        chunks.forEach((chunk, chunkIndex) => {
          push({
            type: "assistant/chunk",
            runId,
            requestId,
            index: chunkIndex,
            delta: { text: chunkIndex === 0 ? chunk : ` ${chunk}` },
          });
        });
        push({
          type: "model/response",
          runId,
          requestId,
          finishReason: final ? "stop" : "tool_calls",
          usage: {
            inputTokens: 500 + Math.floor(rand() * 5000),
            outputTokens: 20 + Math.floor(rand() * 400),
          },
        });
        if (final) {
          log.assistant(answer);
        } else {
          const name = ["read_file", "shell", "grep", "write_file"][Math.floor(rand() * 4)]!;
          log.call(name, {
            path: `src/${source.sentence(1).replace(/\W/g, "")}.ts`,
            note: source.sentence(4),
          });
          log.output(source.sentence(20 + Math.floor(rand() * 80)));
        }
      }
      log.end();
      if (big && turn === Math.floor(turns / 2) && rand() < 0.3) {
        const surface = log.events.filter(
          (event) => event.type === "message" && event.role !== "system",
        );
        const replaces = surface.slice(0, 2).map((event) => event.seq);
        if (replaces.length > 0) log.compact(`Summary: ${source.sentence(30)}`, replaces);
      }
    }
    yield log;
  }
}
