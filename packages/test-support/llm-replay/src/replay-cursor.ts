import type { LlmRequest } from "@tapedeck/llm";
import {
  ReplayExhaustedError,
  ReplayMismatchError,
  type UnconsumedCall,
  UnconsumedResponsesError,
} from "./errors";
import type { RecordedCall, Recording } from "./recording";
import { actualView, compareRequest, type MatchMode, recordedView } from "./request-diff";

/**
 * The position in a recording, shared by the replay provider and the replay server: each request
 * takes the next recorded call if it matches. A mismatch does not advance the cursor (the same
 * recorded call answers a corrected request); replay never wraps around.
 */
export class ReplayCursor {
  private next = 0;

  constructor(
    readonly recording: Recording,
    readonly match: MatchMode = "strict",
  ) {}

  /** Number of calls served so far. */
  get consumed(): number {
    return this.next;
  }

  /**
   * The recorded call that answers `request`.
   *
   * @throws ReplayExhaustedError when every call was used; ReplayMismatchError when the request
   * does not match the next call under the match mode.
   */
  take(request: LlmRequest): RecordedCall {
    const { calls, path } = this.recording;
    const call = calls[this.next];
    if (call === undefined) throw new ReplayExhaustedError(request, calls.length, path);
    if (this.match !== "off") {
      const recorded = recordedView(call);
      const actual = actualView(request);
      const diff = compareRequest(recorded, actual, this.match);
      if (diff.length > 0) {
        throw new ReplayMismatchError(
          {
            callIndex: call.index,
            callCount: calls.length,
            requestId: call.requestId,
            line: call.line,
            ...(path === undefined ? {} : { path }),
          },
          this.match,
          diff,
          { recorded, actual },
        );
      }
    }
    this.next += 1;
    return call;
  }

  /** The call the next request will be compared with, if any. */
  peek(): RecordedCall | undefined {
    return this.recording.calls[this.next];
  }

  /** The calls not served yet. */
  remaining(): RecordedCall[] {
    return this.recording.calls.slice(this.next);
  }

  /** @throws UnconsumedResponsesError listing every recorded call not served yet. */
  assertAllConsumed(): void {
    const left = this.remaining();
    if (left.length === 0) return;
    throw new UnconsumedResponsesError(
      left.map(unconsumed),
      this.recording.calls.length,
      this.recording.path,
    );
  }
}

function unconsumed(call: RecordedCall): UnconsumedCall {
  return {
    callIndex: call.index,
    requestId: call.requestId,
    line: call.line,
    summary: summarize(call),
  };
}

/** What a recorded call answers, in a few words. */
export function summarize(call: RecordedCall): string {
  const { outcome } = call;
  if (outcome.type === "error") return `error ${outcome.code}: ${outcome.message}`;
  if (outcome.type === "cancelled") return "cancelled";
  if (outcome.type === "dropped") return `dropped stream after ${call.chunks.length} chunks`;
  const parts = outcome.items.map((item) =>
    item.type === "message"
      ? `text ${JSON.stringify(item.content.length > 60 ? `${item.content.slice(0, 57)}…` : item.content)}`
      : `function_call ${item.name}(${item.arguments.length > 40 ? `${item.arguments.slice(0, 37)}…` : item.arguments})`,
  );
  if (outcome.refusal !== undefined) {
    const text = outcome.refusal;
    parts.push(`refusal ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}…` : text)}`);
  }
  return parts.length === 0 ? `empty response (${outcome.finishReason})` : parts.join(", ");
}
