import type { LlmErrorCode, ToolDefinition } from "@tapedeck/llm";
import type {
  ApprovalPolicy,
  SessionEvent,
  SessionEventDraft,
  SessionHeader,
  TurnStatus,
} from "@tapedeck/session";
import type { Recording } from "./recording";
import { Materializer } from "./scripted-materializer";
import { scriptedTools } from "./scripted-tools";

/** A finished scripted log: a valid session log, plus the parent's events for a fork. */
export interface ScriptedLog {
  header: SessionHeader;
  /** The log's own events (a fork's start after `header.parent.seq`). */
  events: SessionEvent[];
  /** For a fork: the parent's events up to the fork point. */
  parentEvents?: SessionEvent[];
  /** The tools every model call of the script offered (their digest is in each `model/request`). */
  tools: ToolDefinition[];
  /** The instructions every model call of the script sent. */
  instructions: string | undefined;
  /** Provider-local model name of every call. */
  model: string;
  /** The log as JSONL text: header first, one event a line, each line ending in "\n". */
  jsonl(): string;
  /** Writes the JSONL to `path` (directories are created). Returns `path`. */
  write(path: string): string;
  /** The log as a replay recording. */
  recording(): Recording;
}

/** Where a scripted fork branches off. */
export interface ScriptedParent {
  header: SessionHeader;
  /** The parent's own events. */
  events: readonly SessionEvent[];
  /** The parent's own parent prefix, when the parent is itself a fork. */
  parentEvents?: readonly SessionEvent[];
}

/** Options of {@link scriptedRecording}. */
export interface ScriptedRecordingOptions {
  /** Default a fixed id (forks: one derived from the parent and the fork point). */
  sessionId?: string;
  cwd?: string;
  workspaceId?: string;
  /** Time of the header; each event is later (default 2026-01-01T00:00:00.000Z). */
  start?: Date | string;
  /** Provider-local model name; default `gpt-4.1-mini`. */
  model?: string;
  /** Provider id for `model/request.provider` and the `turn/start` model id; default `openai`. */
  provider?: string;
  /** The instructions the agent sends with every model call (part of `inputDigest`). */
  instructions?: string;
  /**
   * The tools the agent offers (their digest goes into every `model/request`). Default
   * `scriptedTools(<every tool name the script calls>)`.
   */
  tools?: readonly ToolDefinition[];
  policy?: ApprovalPolicy;
  /** Milliseconds between streamed chunks in the timestamps (what `timing: "recorded"` plays); default 5. */
  chunkIntervalMs?: number;
  /** Fork: the parent log and the seq to branch at (default its last event). */
  parent?: { log: ScriptedParent; atSeq?: number };
}

/** Options of a scripted model output. */
export interface ChunkOptions {
  /** The exact chunks (they must join to the full text/arguments); default split in small pieces. */
  chunks?: readonly string[];
}

/** A fluent script of a session; nothing is materialized until `build()`. */
export interface ScriptedRecordingBuilder {
  /** A system message (before the first `user()` it is part of the seed). */
  system(content: string): ScriptedRecordingBuilder;
  /** A developer message. */
  developer(content: string): ScriptedRecordingBuilder;
  /** Sets (or with `null` clears) the session goal. */
  goal(goal: string | null): ScriptedRecordingBuilder;
  /** Ends the open turn (completed) if any, starts a new turn, and adds the user's message. */
  user(content: string, options?: { resumed?: boolean }): ScriptedRecordingBuilder;
  /**
   * Assistant text in the current model response. Consecutive `text`/`toolCall` steps form ONE
   * model call (text, then calls: parallel calls are consecutive `toolCall`s); a `user`,
   * `toolResult`, `compact`, `modelError`, `refusal` or `end` closes it.
   */
  text(content: string, options?: ChunkOptions & { truncated?: boolean }): ScriptedRecordingBuilder;
  /**
   * A function call in the current model response; `args` is JSON text or a value to stringify.
   * `callId` is the provider's id (what the chunks stream); when the session already used it (a
   * server that reuses ids), the logged call gets the agent's fresh id (`sessionCallId`) and keeps
   * this one in `providerCallId`, exactly as the agent logs it.
   */
  toolCall(
    name: string,
    args: unknown,
    options?: ChunkOptions & { callId?: string },
  ): ScriptedRecordingBuilder;
  /** The output of a call: `callId`, or else the oldest call without output. */
  toolResult(
    output: unknown,
    options?: { callId?: string; isError?: boolean },
  ): ScriptedRecordingBuilder;
  /** A model call that fails: optional partial text is streamed first, then the error is logged. */
  modelError(
    code: LlmErrorCode,
    message: string,
    options?: { partialText?: string; status?: number },
  ): ScriptedRecordingBuilder;
  /**
   * A model call in which the model declines: `model/response` with `refusal` (no chunks: refusal
   * text is not streamed as assistant text) and the assistant `message` with the same words, as
   * the agent logs it. End the turn with `.end()` (a refusal completes the turn).
   */
  refusal(text: string): ScriptedRecordingBuilder;
  /**
   * A model call the person cancelled: `partialText` streams, the call ends `cancelled`, and the
   * text they saw stays as the assistant message (what the agent logs). End the turn with
   * `.end("cancelled")`.
   */
  modelCancelled(partialText?: string): ScriptedRecordingBuilder;
  /** A compaction replacing `replaces` (default: every visible item but system/developer messages). */
  compact(summary: string, options?: { replaces?: number[] }): ScriptedRecordingBuilder;
  /** Any other event draft (approvals, `x-` events…); `runId` defaults to the current run. */
  event(draft: ScriptedEventDraft): ScriptedRecordingBuilder;
  /** Ends the open turn. */
  end(status?: TurnStatus): ScriptedRecordingBuilder;
  /** Validates and materializes the log (an open turn stays open: an interrupted run). */
  build(): ScriptedLog;
}

/** An event draft for `.event()`: `runId` may be left out (the current run's is used). */
export type ScriptedEventDraft = SessionEventDraft extends infer Draft
  ? Draft extends unknown
    ? Omit<Draft, "runId"> & { runId?: string }
    : never
  : never;

type Step = { name: string; run: (state: Materializer) => void };

/**
 * Starts a scripted session log: the same format the agent writes, so hand-made fixtures and real
 * recordings are interchangeable. Every model call gets a `model/request` whose `inputDigest`,
 * `toolsDigest` and `inputItems` are what the agent would write for the same history, its chunks
 * as `assistant/chunk` events, a `model/response`, then the complete `message`/`function_call`
 * events. Ids and timestamps are derived from the options, so a script always gives the same
 * bytes.
 *
 * @example
 * const log = scriptedRecording().user("List the files").toolCall("ls", { path: "." })
 *   .toolResult("a.ts").text("One file: a.ts").end().build();
 */
export function scriptedRecording(
  options: ScriptedRecordingOptions = {},
): ScriptedRecordingBuilder {
  const steps: Step[] = [];
  const toolNames: string[] = [];
  const add = (name: string, run: Step["run"]) => {
    steps.push({ name, run });
    return builder;
  };
  const builder: ScriptedRecordingBuilder = {
    system: (content) => add("system", (state) => state.message("system", content)),
    developer: (content) => add("developer", (state) => state.message("developer", content)),
    goal: (goal) => add("goal", (state) => state.goal(goal)),
    user: (content, userOptions = {}) =>
      add("user", (state) => state.user(content, userOptions.resumed ?? false)),
    text: (content, chunkOptions = {}) =>
      add("text", (state) =>
        state.text(content, chunkOptions.chunks, chunkOptions.truncated ?? false),
      ),
    toolCall: (name, args, callOptions = {}) => {
      toolNames.push(name);
      return add(`toolCall(${JSON.stringify(name)})`, (state) =>
        state.toolCall(name, typeof args === "string" ? args : JSON.stringify(args), callOptions),
      );
    },
    toolResult: (output, resultOptions = {}) =>
      add("toolResult", (state) =>
        state.toolResult(
          typeof output === "string" ? output : JSON.stringify(output),
          resultOptions,
        ),
      ),
    modelError: (code, message, errorOptions = {}) =>
      add("modelError", (state) => state.modelError(code, message, errorOptions)),
    refusal: (text) => add("refusal", (state) => state.refusal(text)),
    modelCancelled: (partialText) =>
      add("modelCancelled", (state) => state.modelCancelled(partialText)),
    compact: (summary, compactOptions = {}) =>
      add("compact", (state) => state.compact(summary, compactOptions.replaces)),
    event: (draft) => add(`event(${JSON.stringify(draft.type)})`, (state) => state.raw(draft)),
    end: (status = "completed") =>
      add(`end(${JSON.stringify(status)})`, (state) => state.end(status)),
    build() {
      const tools = options.tools === undefined ? scriptedTools(toolNames) : [...options.tools];
      const state = new Materializer(options, tools);
      steps.forEach((step, index) => {
        try {
          step.run(state);
        } catch (error) {
          throw new Error(
            `scriptedRecording step ${index + 1} (.${step.name}): ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        }
      });
      state.flush();
      return state.result();
    },
  };
  return builder;
}
