import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  type LlmErrorCode,
  type LlmRequest,
  requestDigest,
  type ToolDefinition,
  toolsDigest,
} from "@tapedeck/llm";
import {
  type MessageRole,
  Session,
  type SessionEvent,
  type SessionEventDraft,
  type SessionHeader,
  sessionCallId,
  type TurnStatus,
  type Usage,
} from "@tapedeck/session";
import { deterministicUuid, hashId } from "./deterministic-ids";
import { loadRecording } from "./recording";
import type {
  ChunkOptions,
  ScriptedEventDraft,
  ScriptedLog,
  ScriptedRecordingOptions,
} from "./scripted-recording";

/**
 * The engine behind `scriptedRecording()`: applies the script's steps to a live `Session`, so
 * every invariant is checked as the log grows, and writes the events the agent would write.
 */
interface PendingOutput {
  text?: { content: string; chunks: string[] };
  /** The output hit the token limit (`finishReason: "length"`). */
  truncated?: boolean;
  calls: { callId: string; name: string; arguments: string; chunks: string[] }[];
}

const defaultStart = "2026-01-01T00:00:00.000Z";

/** Runs the steps against a live Session, so every invariant is checked as the log grows. */
export class Materializer {
  private readonly session: Session;
  private readonly own: SessionEvent[] = [];
  private readonly parentEvents: SessionEvent[] | undefined;
  private clock: number;
  private runId: string;
  private runs = 0;
  private requests = 0;
  private calls = 0;
  private pending: PendingOutput | undefined;
  private turnStartUsage = { inputTokens: 0, outputTokens: 0 };
  private readonly model: string;
  private readonly provider: string;
  private readonly interval: number;

  constructor(
    private readonly options: ScriptedRecordingOptions,
    private readonly tools: ToolDefinition[],
  ) {
    const start = new Date(options.start ?? defaultStart).getTime();
    if (Number.isNaN(start)) throw new Error(`start ${String(options.start)} is not a date`);
    this.clock = start;
    this.model = options.model ?? "gpt-4.1-mini";
    this.provider = options.provider ?? "openai";
    this.interval = options.chunkIntervalMs ?? 5;
    const parent = options.parent;
    let parentRef: { sessionId: string; seq: number } | undefined;
    if (parent !== undefined) {
      const all = [
        ...(parent.log.parentEvents ?? []).filter(
          (event) => event.seq <= (parent.log.header.parent?.seq ?? 0),
        ),
        ...parent.log.events,
      ];
      const atSeq = parent.atSeq ?? all.at(-1)?.seq ?? 0;
      this.parentEvents = all.filter((event) => event.seq <= atSeq);
      parentRef = { sessionId: parent.log.header.sessionId, seq: atSeq };
      const last = this.parentEvents.at(-1);
      if (last !== undefined) this.clock = Math.max(this.clock, Date.parse(last.ts) + 1000);
    }
    const sessionId =
      options.sessionId ??
      (parentRef === undefined
        ? "0194a000-0000-7000-8000-000000000001"
        : deterministicUuid(`fork:${parentRef.sessionId}:${parentRef.seq}`, this.clock));
    const cwd = options.cwd ?? "/workspace/project";
    const header: SessionHeader = {
      type: "session",
      version: 1,
      sessionId,
      workspaceId:
        options.workspaceId ?? (parent === undefined ? cwd : parent.log.header.workspaceId),
      createdAt: new Date(this.clock).toISOString(),
      cwd,
      ...(parentRef === undefined ? {} : { parent: parentRef }),
      agent: { name: "tapedeck", version: "0.1.0" },
    };
    this.session = Session.create(sessionId, [], header);
    for (const event of this.parentEvents ?? []) this.session.append(event);
    // Seed events carry the run that created the session: the first turn's.
    this.runId = deterministicUuid(`${sessionId}:run:1`, this.clock);
  }

  private push(draft: SessionEventDraft, gap = 1): SessionEvent {
    this.clock += gap;
    // seq and ts first, as the store writes them.
    const event = {
      seq: this.session.lastSeq + 1,
      ts: new Date(this.clock).toISOString(),
      ...draft,
    } as SessionEvent;
    this.session.append(event);
    this.own.push(event);
    return event;
  }

  message(role: MessageRole, content: string): void {
    this.flush();
    this.push({ type: "message", runId: this.runId, role, content });
  }

  goal(goal: string | null): void {
    this.flush();
    this.push({ type: "goal/set", runId: this.runId, goal });
  }

  user(content: string, resumed: boolean): void {
    this.flush();
    if (this.session.openTurn !== null) this.end("completed");
    this.runs += 1;
    if (this.runs > 1) {
      this.runId = deterministicUuid(
        `${this.session.sessionId}:run:${this.runs}`,
        this.clock + 1000,
      );
    }
    this.turnStartUsage = this.session.usage;
    this.push(
      {
        type: "turn/start",
        runId: this.runId,
        policy: this.options.policy ?? { approval: "auto" },
        model: `${this.provider}:${this.model}`,
        resumed,
      },
      1000,
    );
    this.push({ type: "message", runId: this.runId, role: "user", content });
  }

  private output(): PendingOutput {
    if (this.session.openTurn === null)
      throw new Error("model output needs an open turn: call .user() first");
    this.pending ??= { calls: [] };
    return this.pending;
  }

  text(content: string, chunks: readonly string[] | undefined, truncated: boolean): void {
    const pending = this.output();
    if (pending.text !== undefined || pending.calls.length > 0) {
      throw new Error(
        "a model response has one text, before its calls; close the response first (e.g. .toolResult())",
      );
    }
    pending.text = { content, chunks: checkChunks(content, chunks ?? splitText(content)) };
    if (truncated) pending.truncated = true;
  }

  toolCall(name: string, args: string, options: ChunkOptions & { callId?: string }): void {
    const pending = this.output();
    this.calls += 1;
    const callId =
      options.callId ?? `call_${hashId(`${this.session.sessionId}:call:${this.calls}`)}`;
    pending.calls.push({
      callId,
      name,
      arguments: args,
      chunks: checkChunks(args, options.chunks ?? splitArguments(args)),
    });
  }

  toolResult(output: string, options: { callId?: string; isError?: boolean }): void {
    this.flush();
    const pendingCalls = this.session.pendingCalls;
    const call =
      options.callId === undefined
        ? pendingCalls[0]
        : pendingCalls.find((candidate) => candidate.callId === options.callId);
    if (call === undefined) {
      throw new Error(
        options.callId === undefined
          ? "no function call is waiting for an output"
          : `no function call ${JSON.stringify(options.callId)} is waiting for an output`,
      );
    }
    this.push({
      type: "function_call_output",
      runId: this.runId,
      callId: call.callId,
      output,
      isError: options.isError ?? false,
      sourceEventSeqs: [call.seq],
    });
  }

  modelError(
    code: LlmErrorCode,
    message: string,
    options: { partialText?: string; status?: number },
  ): void {
    this.flush();
    if (this.session.openTurn === null)
      throw new Error("a model call needs an open turn: call .user() first");
    const requestId = this.request();
    const chunks = options.partialText === undefined ? [] : splitText(options.partialText);
    chunks.forEach((text, index) => {
      this.push(
        { type: "assistant/chunk", runId: this.runId, requestId, index, delta: { text } },
        this.interval,
      );
    });
    this.push({
      type: "model/response",
      runId: this.runId,
      requestId,
      finishReason: "error",
      error: { code, message, ...(options.status === undefined ? {} : { status: options.status }) },
    });
  }

  refusal(text: string): void {
    this.flush();
    if (this.session.openTurn === null)
      throw new Error("a model call needs an open turn: call .user() first");
    if (text === "") throw new Error("a refusal needs the model's words (got an empty string)");
    const inputChars = this.inputChars();
    const requestId = this.request();
    this.push({
      type: "model/response",
      runId: this.runId,
      requestId,
      finishReason: "stop",
      usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: splitText(text).length },
      refusal: text,
    });
    this.push({ type: "message", runId: this.runId, role: "assistant", content: text });
  }

  private inputChars(): number {
    return this.session.history().reduce((sum, item) => sum + JSON.stringify(item).length, 0);
  }

  modelCancelled(partialText: string | undefined): void {
    this.flush();
    if (this.session.openTurn === null) {
      throw new Error("a model call needs an open turn: call .user() first");
    }
    const requestId = this.request();
    const chunks = partialText === undefined ? [] : splitText(partialText);
    chunks.forEach((text, index) => {
      this.push(
        { type: "assistant/chunk", runId: this.runId, requestId, index, delta: { text } },
        this.interval,
      );
    });
    this.push({ type: "model/response", runId: this.runId, requestId, finishReason: "cancelled" });
    if (partialText !== undefined && partialText !== "") {
      this.push({ type: "message", runId: this.runId, role: "assistant", content: partialText });
    }
  }

  compact(summary: string, replaces: number[] | undefined): void {
    this.flush();
    const targets =
      replaces ??
      this.session.surface
        .filter(
          ({ item }) =>
            !(item.type === "message" && (item.role === "system" || item.role === "developer")),
        )
        .map(({ seq }) => seq);
    if (targets.length === 0) throw new Error("nothing on the surface to compact");
    this.push({
      type: "compaction",
      runId: this.runId,
      summary,
      surfaceOp: "replace",
      replaces: targets,
    });
  }

  raw(draft: ScriptedEventDraft): void {
    this.flush();
    this.push({ ...draft, runId: draft.runId ?? this.runId } as SessionEventDraft);
  }

  end(status: TurnStatus): void {
    this.flush();
    const waiting = this.session.pendingCalls;
    if (waiting.length > 0) {
      throw new Error(
        `the turn cannot end while calls have no output (${waiting.map((call) => call.callId).join(", ")}); add .toolResult() first, or build() without .end() for an interrupted run`,
      );
    }
    this.push({
      type: "turn/end",
      runId: this.runId,
      status,
      ...(status === "completed" ? { usage: this.turnUsage() } : {}),
    });
  }

  private turnUsage(): Usage {
    const totals = this.session.usage;
    return {
      inputTokens: totals.inputTokens - this.turnStartUsage.inputTokens,
      outputTokens: totals.outputTokens - this.turnStartUsage.outputTokens,
    };
  }

  private request(): string {
    this.requests += 1;
    const requestId = `req_${hashId(`${this.session.sessionId}:request:${this.requests}`)}`;
    const request: LlmRequest = {
      model: this.model,
      input: this.session.history(),
      tools: this.tools,
      ...(this.options.instructions === undefined
        ? {}
        : { instructions: this.options.instructions }),
    };
    this.push({
      type: "model/request",
      runId: this.runId,
      requestId,
      provider: this.provider,
      model: this.model,
      inputDigest: requestDigest(request),
      toolsDigest: toolsDigest(this.tools),
      inputItems: this.session.currentSeqs,
      toolNames: this.tools.map((tool) => tool.name),
    });
    return requestId;
  }

  /** Materializes the open model response, if any. */
  flush(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    const inputChars = this.inputChars();
    const requestId = this.request();
    let index = 0;
    for (const text of pending.text?.chunks ?? []) {
      this.push(
        { type: "assistant/chunk", runId: this.runId, requestId, index, delta: { text } },
        this.interval,
      );
      index += 1;
    }
    for (const call of pending.calls) {
      call.chunks.forEach((fragment, position) => {
        const delta =
          position === 0
            ? { callId: call.callId, name: call.name, arguments: fragment }
            : { callId: call.callId, arguments: fragment };
        this.push(
          { type: "assistant/chunk", runId: this.runId, requestId, index, delta },
          this.interval,
        );
        index += 1;
      });
    }
    this.push({
      type: "model/response",
      runId: this.runId,
      requestId,
      finishReason:
        pending.truncated === true ? "length" : pending.calls.length > 0 ? "tool_calls" : "stop",
      usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: index },
    });
    if (pending.text !== undefined) {
      this.push({
        type: "message",
        runId: this.runId,
        role: "assistant",
        content: pending.text.content,
      });
    }
    // The agent's rule: a provider id the session already used gets a fresh callId, the
    // provider's kept in providerCallId (chunks above carry the provider's, as streamed).
    const taken = new Set<string>();
    for (const call of pending.calls) {
      const callId = sessionCallId(this.session, call.callId, taken);
      taken.add(callId);
      this.push({
        type: "function_call",
        runId: this.runId,
        callId,
        name: call.name,
        arguments: call.arguments,
        ...(callId === call.callId ? {} : { providerCallId: call.callId }),
      });
    }
  }

  result(): ScriptedLog {
    const header = this.session.header;
    const events = [...this.own];
    const parentEvents = this.parentEvents;
    const jsonl = () => [header, ...events].map((line) => `${JSON.stringify(line)}\n`).join("");
    const log: ScriptedLog = {
      header,
      events,
      tools: this.tools,
      instructions: this.options.instructions,
      model: this.model,
      jsonl,
      write(path) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, jsonl());
        return path;
      },
      recording: () =>
        loadRecording(
          parentEvents === undefined ? { header, events } : { header, events, parentEvents },
        ),
    };
    if (parentEvents !== undefined) log.parentEvents = parentEvents;
    return log;
  }
}

function checkChunks(full: string, chunks: readonly string[]): string[] {
  if (chunks.join("") !== full) {
    throw new Error(`chunks ${JSON.stringify(chunks)} do not join to ${JSON.stringify(full)}`);
  }
  return chunks.length === 0 ? [""] : [...chunks];
}

/** Words with their trailing space; CJK text one or two characters a chunk (as tokenizers do). */
export function splitText(text: string): string[] {
  if (text === "") return [""];
  return (
    text.match(/[\u3000-\u9fff\uff00-\uffef]{1,2}|[^\s\u3000-\u9fff\uff00-\uffef]+\s*|\s+/g) ?? [
      text,
    ]
  );
}

/** JSON text in fragments of up to 8 characters, as models stream arguments. */
export function splitArguments(text: string): string[] {
  if (text === "") return [""];
  const characters = Array.from(text);
  const pieces: string[] = [];
  for (let index = 0; index < characters.length; index += 8) {
    pieces.push(characters.slice(index, index + 8).join(""));
  }
  return pieces;
}
