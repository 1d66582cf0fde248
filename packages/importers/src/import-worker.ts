/**
 * The entry of an import worker thread (`import-pool.ts` starts it): converts the files it is
 * sent and writes their sessions through its own store on the same home. The store validates and
 * locks here as in any other process, so two workers are as safe as two imports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createSessionStore } from "@tapedeck/session-store";
import { RunWriter } from "./import-file";
import type { FromWorker, WorkerInit } from "./worker-protocol";
import { serveImports } from "./worker-serve";

const port = parentPort;
if (port === null) throw new Error("import-worker runs as a worker thread");
const init = workerData as WorkerInit;
const run = new RunWriter(createSessionStore(init.store), init.dryRun);
const post = (message: FromWorker) => port.postMessage(message);
const serve = serveImports(run, post, (_index, error) => {
  // Stop the worker: the import reports the file it held.
  process.nextTick(() => {
    throw error;
  });
});
port.on("message", serve);
post({ type: "ready" });
