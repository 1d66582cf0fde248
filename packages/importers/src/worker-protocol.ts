/** The messages between an import and its worker threads (same process, plain data). */
import type { SessionStoreOptions } from "@tapedeck/session-store";
import type { FileReport } from "./import-file";
import type { UnitSpec } from "./locate";
import type { ConvertedSession } from "./types";

/** `workerData` of an import worker: how to open the store, and whether to write. */
export interface WorkerInit {
  store: SessionStoreOptions;
  dryRun: boolean;
}

/** From the import to a worker. */
export type ToWorker =
  /** Convert this file, report its keys, wait for `go`. */
  | { type: "file"; index: number; spec: UnitSpec }
  /** Write the file's sessions; `written` are its fork parents written earlier in the run. */
  | { type: "go"; index: number; written: string[] }
  /** Flush the logs written, answer `finished`. */
  | { type: "finish" };

/** What a worker reports of a file (the import owns path and bytes). */
export type FileResult = Pick<FileReport, "entries" | "sessions" | "skipped" | "error">;

/** From a worker to the import. */
export type FromWorker =
  /** Loaded, listening. */
  | { type: "ready" }
  /** The file is converted; these source keys (sessions and fork parents) are in it. */
  | { type: "keys"; index: number; keys: string[] }
  /** The file is done; `later` are forks of sessions not written yet, for the end of the run. */
  | { type: "done"; index: number; result: FileResult; later: ConvertedSession[] }
  /** Every log written is on disk (or `error`: a flush failed). */
  | { type: "finished"; error?: string };
