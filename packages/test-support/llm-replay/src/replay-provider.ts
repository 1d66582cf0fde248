import {
  LlmError,
  type LlmProvider,
  type LlmRequest,
  type LlmStreamOptions,
  type LlmStreamPart,
} from "@tapedeck/llm";
import {
  isToolCallDelta,
  type LoadRecordingOptions,
  loadRecording,
  type RecordedCall,
  type Recording,
  type RecordingEvents,
} from "./recording";
import { ReplayCursor } from "./replay-cursor";
import type { MatchMode } from "./request-diff";
import { delayBefore, type ReplayTiming, sleep, timingScale } from "./timing";

/** Options of {@link createReplayProvider}. */
export interface ReplayProviderOptions {
  /** How a request must match its recorded call; default `strict`. */
  match?: MatchMode;
  /** Chunk pacing; default `none`. */
  timing?: ReplayTiming;
  /** Provider id to report (what the agent writes as `model/request.provider`); default `replay`. */
  id?: string;
  /** For a fork loaded from a path: where its parent is. */
  parent?: LoadRecordingOptions["parent"];
}

/** An {@link LlmProvider} that answers from a recording, in order. */
export interface ReplayProvider extends LlmProvider {
  readonly recording: Recording;
  /** Number of recorded calls served so far. */
  readonly consumed: number;
  /** The recorded calls not served yet. */
  remaining(): RecordedCall[];
  /** @throws UnconsumedResponsesError when recorded calls are left (call it at the end of a test). */
  assertAllConsumed(): void;
}

/**
 * Replays the model calls of a session log as an {@link LlmProvider}. Each `stream` call takes the
 * next recorded call, checks the request against it (`match`), then yields exactly the recorded
 * chunks (same boundaries) and the recorded response. Recorded errors are thrown as `LlmError`
 * with the recorded code; a call cut off in the log (no `model/response`) throws `NETWORK`.
 *
 * @throws (from `stream`) ReplayMismatchError, ReplayExhaustedError, LlmError.
 */
export function createReplayProvider(
  source: string | RecordingEvents | Recording,
  options: ReplayProviderOptions = {},
): ReplayProvider {
  const recording = loadRecording(
    source,
    options.parent === undefined ? {} : { parent: options.parent },
  );
  const cursor = new ReplayCursor(recording, options.match ?? "strict");
  const scale = timingScale(options.timing);
  const id = options.id ?? "replay";
  return {
    id,
    recording,
    get consumed() {
      return cursor.consumed;
    },
    remaining: () => cursor.remaining(),
    assertAllConsumed: () => cursor.assertAllConsumed(),
    stream(
      request: LlmRequest,
      streamOptions: LlmStreamOptions = {},
    ): AsyncIterable<LlmStreamPart> {
      return replayCall(cursor, request, scale, id, streamOptions.signal);
    },
  };
}

async function* replayCall(
  cursor: ReplayCursor,
  request: LlmRequest,
  scale: number,
  provider: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<LlmStreamPart> {
  if (signal?.aborted === true)
    throw new LlmError("ABORTED", "The model call was cancelled.", { provider });
  const call = cursor.take(request);
  for (const [index, chunk] of call.chunks.entries()) {
    await sleep(delayBefore(call, index, scale), signal);
    const { delta } = chunk;
    if (isToolCallDelta(delta)) {
      yield {
        type: "tool-call-delta",
        callId: delta.callId,
        arguments: delta.arguments,
        ...(delta.name === undefined ? {} : { name: delta.name }),
      };
    } else {
      yield { type: "text-delta", text: delta.text };
    }
  }
  await sleep(delayBefore(call, call.chunks.length, scale), signal);
  const { outcome } = call;
  switch (outcome.type) {
    case "response": {
      const part: LlmStreamPart = {
        type: "response",
        items: outcome.items.map((item) => ({ ...item })),
        finishReason: outcome.finishReason,
      };
      if (outcome.usage !== undefined) part.usage = { ...outcome.usage };
      if (outcome.refusal !== undefined) part.refusal = outcome.refusal;
      yield part;
      return;
    }
    case "error":
      throw new LlmError(outcome.code, outcome.message, {
        provider,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
      });
    case "cancelled":
      throw new LlmError("ABORTED", "The model call was cancelled (as recorded).", { provider });
    case "dropped":
      throw new LlmError(
        "NETWORK",
        `The model stream broke off after ${call.chunks.length} chunks (the recording has no model/response for ${call.requestId}).`,
        { provider },
      );
  }
}
