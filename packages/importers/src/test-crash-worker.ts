/**
 * An import worker for `import-workers.test.ts` that stops, as a crash would, when it is sent
 * `rollout-12.jsonl`; every other file is imported by the real worker.
 */
import { parentPort } from "node:worker_threads";
import type { ToWorker } from "./worker-protocol";

await import("./import-worker");

parentPort?.on("message", (message: ToWorker) => {
  if (
    message.type === "file" &&
    message.spec.kind === "file" &&
    message.spec.path.endsWith("rollout-12.jsonl")
  ) {
    throw new Error("crash requested");
  }
});
