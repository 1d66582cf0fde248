import { LlmConfigError, LlmError } from "./errors";

/** How long a model stream may send nothing before it fails: 120 s. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;

/**
 * The idle timeout from `TAPEDECK_STREAM_IDLE_TIMEOUT_MS` (a positive number of milliseconds;
 * `0` turns it off), else {@link DEFAULT_STREAM_IDLE_TIMEOUT_MS}.
 *
 * @throws LlmConfigError when the value is not a whole number of milliseconds.
 */
export function streamIdleTimeoutFromEnv(env: Record<string, string | undefined>): number {
  const text = env.TAPEDECK_STREAM_IDLE_TIMEOUT_MS?.trim();
  if (text === undefined || text === "") return DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new LlmConfigError(
      `TAPEDECK_STREAM_IDLE_TIMEOUT_MS must be a whole number of milliseconds (0 turns the timeout off), not ${JSON.stringify(text)}.`,
    );
  }
  return value;
}

/** The key under which a call's request options carry its watchdog's `touch` to the fetch. */
const activity = Symbol.for("tapedeck.llm.streamActivity");

/**
 * `fetch` that reports every byte of a response body (SSE keep-alive comments included) and the
 * arrival of its headers to the watchdog the request names in its options (see
 * {@link IdleWatchdog.fetchOptions}); other requests pass through untouched.
 */
export function watchedFetch(base: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const touch = (init as Record<symbol, unknown> | undefined)?.[activity];
    if (typeof touch !== "function" || response.body === null) return response;
    touch();
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          touch();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** "120 s", "1.5 s", "250 ms": the timeout as a person reads it. */
function seconds(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * A watchdog over one model call: its `signal` (the caller's signal or the watchdog's) aborts
 * the request when no data arrived for `timeoutMs` since the call started or since the last
 * {@link IdleWatchdog.touch}. With `timeoutMs` 0 it only forwards the caller's signal.
 */
export class IdleWatchdog {
  readonly signal: AbortSignal | undefined;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired = false;

  private readonly timeoutMs: number | undefined;

  constructor(timeoutMs: number, outer: AbortSignal | undefined) {
    this.timeoutMs = timeoutMs > 0 ? timeoutMs : undefined;
    if (this.timeoutMs === undefined) {
      this.signal = outer;
      return;
    }
    this.signal =
      outer === undefined
        ? this.controller.signal
        : AbortSignal.any([outer, this.controller.signal]);
    this.touch();
  }

  /**
   * Request options for the `openai` client: they carry `signal` and let {@link watchedFetch}
   * report the bytes of this call's response.
   */
  requestOptions(): { signal?: AbortSignal; fetchOptions?: { [key: symbol]: unknown } } {
    if (this.timeoutMs === undefined)
      return this.signal === undefined ? {} : { signal: this.signal };
    const fetchOptions = { [activity]: () => this.touch() };
    return { signal: this.signal as AbortSignal, fetchOptions };
  }

  /** Data arrived: the idle time starts again. */
  touch(): void {
    if (this.timeoutMs === undefined || this.expired) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, this.timeoutMs);
    // A pending model call keeps the process alive by itself; the timer must not.
    this.timer.unref?.();
  }

  /** The error to throw when the watchdog ended the call, else `undefined`. */
  error(provider: string): LlmError | undefined {
    if (!this.expired || this.timeoutMs === undefined) return undefined;
    return new LlmError(
      "IDLE_TIMEOUT",
      `the model server sent no data for ${seconds(this.timeoutMs)} (TAPEDECK_STREAM_IDLE_TIMEOUT_MS sets how long to wait)`,
      { provider },
    );
  }

  /** Stops the timer (the call ended). */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
