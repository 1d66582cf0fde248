/**
 * Test helpers for building valid logs by hand (`@tapedeck/session/testing`). For logs with model
 * requests and streamed chunks, use `scriptedRecording()` from `@tapedeck/llm-replay`.
 */
import { uuidv7 } from "./ids";
import type { ApprovalPolicy, SessionEvent, SessionEventDraft, SessionHeader } from "./schema";

/** Options of {@link eventLogBuilder}. */
export interface EventLogBuilderOptions {
  sessionId?: string;
  workspaceId?: string;
  cwd?: string;
  parent?: { sessionId: string; seq: number };
  /** Time of the first event; each later event is 1 ms later. */
  start?: Date;
}

/** A fluent builder of complete, valid events. */
export interface EventLogBuilder {
  readonly header: SessionHeader;
  readonly events: SessionEvent[];
  /** Appends any draft, assigning seq and ts. Returns the event. */
  push(draft: SessionEventDraft): SessionEvent;
  system(content: string): EventLogBuilder;
  /** Starts a turn (new runId unless given). */
  turn(options?: {
    runId?: string;
    policy?: ApprovalPolicy;
    model?: string;
    resumed?: boolean;
  }): EventLogBuilder;
  user(content: string): EventLogBuilder;
  assistant(content: string): EventLogBuilder;
  call(name: string, args: unknown, callId?: string): EventLogBuilder;
  /** Output for `callId` (default: the last call). */
  output(output: string, options?: { callId?: string; isError?: boolean }): EventLogBuilder;
  compact(summary: string, replaces: number[]): EventLogBuilder;
  end(status?: "completed" | "cancelled" | "failed" | "interrupted"): EventLogBuilder;
  /** The log as JSONL text (header first, each line ending in "\n"). */
  jsonl(): string;
}

/** Starts a builder of a valid log (a fork when `parent` is given: seqs continue after it). */
export function eventLogBuilder(options: EventLogBuilderOptions = {}): EventLogBuilder {
  const sessionId = options.sessionId ?? uuidv7();
  const cwd = options.cwd ?? "/workspace/project";
  const header: SessionHeader = {
    type: "session",
    version: 1,
    sessionId,
    workspaceId: options.workspaceId ?? cwd,
    createdAt: (options.start ?? new Date("2026-01-01T00:00:00.000Z")).toISOString(),
    cwd,
    agent: { name: "tapedeck", version: "0.1.0" },
    ...(options.parent === undefined ? {} : { parent: options.parent }),
  };
  const events: SessionEvent[] = [];
  let seq = options.parent?.seq ?? 0;
  let clock = (options.start ?? new Date("2026-01-01T00:00:00.000Z")).getTime();
  let runId = uuidv7();
  let callCounter = 0;
  let lastCall: { callId: string; seq: number } | undefined;
  const calls = new Map<string, number>();

  const builder: EventLogBuilder = {
    header,
    events,
    push(draft) {
      seq += 1;
      clock += 1;
      const event = { ...draft, seq, ts: new Date(clock).toISOString() } as SessionEvent;
      events.push(event);
      return event;
    },
    system(content) {
      builder.push({ type: "message", runId, role: "system", content });
      return builder;
    },
    turn(turnOptions = {}) {
      runId = turnOptions.runId ?? uuidv7();
      builder.push({
        type: "turn/start",
        runId,
        policy: turnOptions.policy ?? { approval: "auto" },
        model: turnOptions.model ?? "openai:gpt-4.1-mini",
        resumed: turnOptions.resumed ?? false,
      });
      return builder;
    },
    user(content) {
      builder.push({ type: "message", runId, role: "user", content });
      return builder;
    },
    assistant(content) {
      builder.push({ type: "message", runId, role: "assistant", content });
      return builder;
    },
    call(name, args, callId) {
      callCounter += 1;
      const id = callId ?? `call_${callCounter}_${sessionId.slice(-4)}`;
      const event = builder.push({
        type: "function_call",
        runId,
        callId: id,
        name,
        arguments: JSON.stringify(args),
      });
      lastCall = { callId: id, seq: event.seq };
      calls.set(id, event.seq);
      return builder;
    },
    output(output, outputOptions = {}) {
      const callId = outputOptions.callId ?? lastCall?.callId;
      if (callId === undefined) throw new Error("output() needs a call first");
      const callSeq = calls.get(callId);
      builder.push({
        type: "function_call_output",
        runId,
        callId,
        output,
        isError: outputOptions.isError ?? false,
        ...(callSeq === undefined ? {} : { sourceEventSeqs: [callSeq] }),
      });
      return builder;
    },
    compact(summary, replaces) {
      builder.push({ type: "compaction", runId, summary, surfaceOp: "replace", replaces });
      return builder;
    },
    end(status = "completed") {
      builder.push({ type: "turn/end", runId, status });
      return builder;
    },
    jsonl() {
      return [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
    },
  };
  return builder;
}

export {
  benchModelRequest,
  benchTurnStart,
  type CorpusOptions,
  generateCorpus,
  random,
  textSource,
  vocabulary,
} from "./corpus";
export { type MarkedErrorCase, type MarkedErrorClass, markerProblems } from "./error-markers";
