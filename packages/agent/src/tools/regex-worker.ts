import { Worker } from "node:worker_threads";

/**
 * The matcher run in a worker thread: a pattern the model chose may backtrack for hours
 * (`(a+)+$`), and JavaScript cannot interrupt a running regular expression. Off the main thread,
 * the run stays responsive (Ctrl-C, the viewer's other requests) and the worker is terminated at a
 * deadline. Kept as source text so the bundled binary needs no separate worker file.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.pattern, workerData.flags);
parentPort.on("message", ({ text, max }) => {
  const lines = text.split("\\n");
  const hits = [];
  for (let index = 0; index < lines.length && hits.length < max; index += 1) {
    if (regex.test(lines[index])) hits.push([index + 1, lines[index]]);
  }
  parentPort.postMessage(hits);
});
`;

/** Default time one search may spend matching, in ms (`TAPEDECK_SEARCH_TIMEOUT_MS`). */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

/** Thrown when the deadline passed or the run was cancelled; the worker is terminated. */
export class RegexStopped extends Error {
  constructor(readonly reason: "timeout" | "cancelled") {
    super(reason);
    this.name = "RegexStopped";
  }
}

/** A regular expression matched line by line in a worker thread, under one deadline. */
export class RegexWorker {
  private readonly worker: Worker;
  private readonly deadline: number;

  constructor(
    pattern: string,
    flags: string,
    timeoutMs: number,
    private readonly signal: AbortSignal,
  ) {
    this.worker = new Worker(workerSource, { eval: true, workerData: { pattern, flags } });
    this.worker.unref();
    this.deadline = Date.now() + timeoutMs;
  }

  /** The matching lines of `text` (1-based line numbers), at most `max`. */
  match(text: string, max: number): Promise<[number, string][]> {
    return new Promise((resolve, reject) => {
      const remaining = this.deadline - Date.now();
      const finish = (error?: RegexStopped, hits?: [number, string][]) => {
        clearTimeout(timer);
        this.signal.removeEventListener("abort", onAbort);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
        if (error !== undefined) {
          void this.worker.terminate();
          reject(error);
        } else resolve(hits ?? []);
      };
      const onMessage = (hits: [number, string][]) => finish(undefined, hits);
      const onError = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      const onAbort = () => finish(new RegexStopped("cancelled"));
      const timer = setTimeout(() => finish(new RegexStopped("timeout")), Math.max(0, remaining));
      if (this.signal.aborted) {
        onAbort();
        return;
      }
      this.signal.addEventListener("abort", onAbort, { once: true });
      this.worker.on("message", onMessage);
      this.worker.on("error", onError);
      this.worker.postMessage({ text, max });
    });
  }

  /** Ends the worker. */
  close(): Promise<number> {
    return this.worker.terminate();
  }
}
