import { LlmError } from "@tapedeck/llm";
import type { RecordedCall } from "./recording";

/**
 * Pacing of replayed chunks: `none` (as fast as possible, the default), `recorded` (the gaps
 * between the logged timestamps) or `{ scale }` (recorded gaps times `scale`; 0.1 is ten times
 * faster).
 */
export type ReplayTiming = "none" | "recorded" | { scale: number };

/** The scale factor of a timing option (0 for none). */
export function timingScale(timing: ReplayTiming | undefined): number {
  if (timing === undefined || timing === "none") return 0;
  if (timing === "recorded") return 1;
  if (!Number.isFinite(timing.scale) || timing.scale < 0) {
    throw new RangeError(`timing.scale must be a finite number ≥ 0, got ${timing.scale}`);
  }
  return timing.scale;
}

/**
 * Milliseconds to wait before step `index` of a call: steps are the chunks, then the outcome; the
 * gap is measured from the previous step (the request for the first chunk).
 */
export function delayBefore(call: RecordedCall, index: number, scale: number): number {
  if (scale === 0) return 0;
  const times = [call.ts, ...call.chunks.map((chunk) => chunk.ts)];
  if (call.outcome.type !== "dropped") times.push(call.outcome.ts);
  const previous = Date.parse(times[index] ?? "");
  const current = Date.parse(times[index + 1] ?? "");
  if (Number.isNaN(previous) || Number.isNaN(current)) return 0;
  return Math.max(0, current - previous) * scale;
}

/** Waits `ms` (no timer at all for 0); rejects with LlmError `aborted` when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 && signal?.aborted !== true) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(new LlmError("ABORTED", "The model call was cancelled.", { provider: "replay" }));
    };
    if (signal?.aborted === true) {
      aborted();
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
