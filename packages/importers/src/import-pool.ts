/**
 * Importing files on worker threads: each worker converts a file, validates and writes its
 * sessions through its own store (same home), so conversion, serialisation and validation run on
 * every core. The result is the one the main thread would produce alone: a file writes only once
 * every earlier file that touches one of its source sessions (or the session it forks) is
 * written, and a fork of a session not written by an earlier file waits for the end of the run.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { SessionStore } from "@tapedeck/session-store";
import { describe, type FileReport, keyOf, RunWriter } from "./import-file";
import type { ImportUnit, UnitSpec } from "./locate";
import type { ConvertedSession } from "./types";
import type { FromWorker, ToWorker, WorkerInit } from "./worker-protocol";
import { serveImports } from "./worker-serve";

/** How to start an import worker. */
export interface WorkerEntry {
  /** The worker's module. */
  url: URL;
  /**
   * For a TypeScript module: tsx's ESM API, whose `tsImport` loads it (Node 20 applies neither
   * `--import tsx` nor `module.register` to a worker's entry).
   */
  tsx?: URL;
}

/**
 * The worker's entry next to this module: `import-worker.ts` when running as TypeScript source
 * (under vitest or tsx; loaded with tsx, when installed), else the bundle's `import-worker.mjs`
 * (the CLI) or `import-worker.js` (the package's build). `undefined` when there is none: the
 * import runs on the calling thread.
 */
export function defaultWorkerEntry(): WorkerEntry | undefined {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    let tsx: URL;
    try {
      const root = dirname(createRequire(here).resolve("tsx/package.json"));
      tsx = pathToFileURL(join(root, "dist", "esm", "api", "index.mjs"));
    } catch {
      return undefined;
    }
    if (!existsSync(fileURLToPath(tsx))) return undefined;
    return { url: new URL("./import-worker.ts", here), tsx };
  }
  for (const name of ["./import-worker.mjs", "./import-worker.js"]) {
    const url = new URL(name, here);
    if (existsSync(fileURLToPath(url))) return { url };
  }
  return undefined;
}

function startWorker(entry: WorkerEntry, workerData: WorkerInit): Worker {
  // Not the parent's `execArgv`: a bundle needs no loader (the bench runs under tsx).
  const options = { workerData, stdout: false, stderr: false, execArgv: [] };
  if (entry.tsx === undefined) return new Worker(entry.url, options);
  const [api, url] = [JSON.stringify(entry.tsx.href), JSON.stringify(entry.url.href)];
  return new Worker(`import(${api}).then((tsx) => tsx.tsImport(${url}, ${url}));`, {
    ...options,
    eval: true,
  });
}

/** One file of the run, in run order. */
export interface PoolFile {
  unit: ImportUnit & { spec: UnitSpec };
  report: FileReport;
}

/** Options of {@link importOnWorkers}. */
export interface PoolOptions {
  store: SessionStore;
  dryRun: boolean;
  files: readonly PoolFile[];
  workers: number;
  entry: WorkerEntry;
  /** Source keys written so far in the run; updated as files finish. */
  written: Set<string>;
  /** Called once per file, when its report is complete. */
  onDone: (file: PoolFile) => void;
  /** Let this thread take files too, as a worker does (default true). */
  thisThread?: boolean;
}

/** What is left for the main thread after the workers. */
export interface PoolResult {
  /** Forks whose parents were not written yet when their file was, per file, in file order. */
  later: { report: FileReport; sessions: ConvertedSession[] }[];
  /** Files no worker could take (every worker failed to start); none when all went well. */
  notStarted: PoolFile[];
  /** Worker threads that started (a replaced one counts again). */
  started: number;
}

/** One importing thread: a worker, or the importing thread itself. */
interface Slot {
  send(message: ToWorker): void;
  stop(): Promise<unknown>;
  ready: boolean;
  /** Indexes of the files it holds, at most `window`. */
  files: Set<number>;
  /**
   * Files held at once: a worker converts its next file while its last one waits for `go` (the
   * importing thread's event loop, busy with its own file, answers late); this thread takes one.
   */
  window: number;
  failure: string | undefined;
  finished: ((error: string | undefined) => void) | undefined;
}

/**
 * Imports `files` on up to `workers` worker threads. A worker that stops (crash, out of memory)
 * turns the file it held into a file with `error` and is replaced; nothing waits forever. Rejects
 * only when a worker could not flush the logs it wrote.
 */
export function importOnWorkers(options: PoolOptions): Promise<PoolResult> {
  const { files, written } = options;
  const keys: (string[] | undefined)[] = files.map(() => undefined);
  const done: boolean[] = files.map(() => false);
  /** Files not done, per source key they touch. */
  const claims = new Map<string, Set<number>>();
  const held = new Map<number, Slot>();
  const later: (ConvertedSession[] | undefined)[] = files.map(() => undefined);
  const slots = new Set<Slot>();
  let next = 0;
  let firstUnreported = 0;
  let doneCount = 0;
  let starting = 0;
  let started = 0;

  return new Promise<PoolResult>((resolve, reject) => {
    /** A throw of ours (`onDone`, say) stops every worker and fails the import, never hangs it. */
    let aborted = false;
    const guarded = (handle: () => void) => {
      if (aborted) return;
      try {
        handle();
      } catch (error) {
        aborted = true;
        for (const slot of slots) slot.finished ??= () => {};
        void Promise.all([...slots].map((slot) => slot.stop())).finally(() => reject(error));
      }
    };
    const setKeys = (index: number, fileKeys: string[]) => {
      if (keys[index] !== undefined) return;
      keys[index] = fileKeys;
      for (const key of fileKeys) {
        const set = claims.get(key) ?? new Set<number>();
        claims.set(key, set);
        set.add(index);
      }
      while (firstUnreported < files.length && keys[firstUnreported] !== undefined)
        firstUnreported += 1;
    };
    const mayWrite = (index: number) =>
      firstUnreported > index &&
      keys[index]!.every((key) => {
        for (const other of claims.get(key) ?? []) if (other < index) return false;
        return true;
      });
    const release = () => {
      for (const [index, slot] of [...held].sort(([a], [b]) => a - b)) {
        if (!mayWrite(index)) continue;
        held.delete(index);
        const go: ToWorker = {
          type: "go",
          index,
          written: keys[index]!.filter((key) => written.has(key)),
        };
        slot.send(go);
      }
    };
    const finishFile = (index: number) => {
      setKeys(index, []);
      done[index] = true;
      doneCount += 1;
      for (const key of keys[index]!) claims.get(key)?.delete(index);
      for (const session of files[index]!.report.sessions) written.add(keyOf(session.key));
      options.onDone(files[index]!);
    };
    const dispatch = (slot: Slot) => {
      while (next < files.length && slot.files.size < slot.window) {
        const index = next;
        next += 1;
        slot.files.add(index);
        slot.send({ type: "file", index, spec: files[index]!.unit.spec });
      }
      if (doneCount === files.length) void finishAll();
    };
    const onMessage = (slot: Slot, message: FromWorker) => {
      switch (message.type) {
        case "ready":
          slot.ready = true;
          starting -= 1;
          started += 1;
          dispatch(slot);
          return;
        case "keys":
          setKeys(message.index, message.keys);
          held.set(message.index, slot);
          release();
          return;
        case "done": {
          Object.assign(files[message.index]!.report, message.result);
          if (message.later.length > 0) later[message.index] = message.later;
          slot.files.delete(message.index);
          finishFile(message.index);
          release();
          dispatch(slot);
          return;
        }
        case "finished":
          slot.finished?.(message.error);
          return;
      }
    };
    const onExit = (slot: Slot, code: number) => {
      slots.delete(slot);
      if (slot.finished !== undefined) {
        slot.finished(slot.failure ?? (code === 0 ? undefined : `exit code ${code}`));
        return;
      }
      if (!slot.ready) starting -= 1;
      // Every file it held fails: which one stopped it cannot be told.
      for (const index of slot.files) {
        if (done[index]) continue;
        held.delete(index);
        const why = slot.failure ?? `exit code ${code}`;
        files[index]!.report.error = `the import worker stopped: ${why}`;
        finishFile(index);
      }
      slot.files.clear();
      release();
      // A worker that never started is not replaced: the files go back to this thread.
      if (slot.ready && next < files.length) start();
      else if (slots.size === 0 && starting === 0) void finishAll();
      else if (doneCount === files.length && next >= files.length) void finishAll();
    };
    const start = () => {
      const init: WorkerInit = {
        store: { ...options.store.threadOptions },
        dryRun: options.dryRun,
      };
      const worker = startWorker(options.entry, init);
      const slot: Slot = {
        send: (message) => worker.postMessage(message),
        stop: () => worker.terminate(),
        ready: false,
        files: new Set(),
        window: 2,
        failure: undefined,
        finished: undefined,
      };
      slots.add(slot);
      starting += 1;
      worker.on("message", (message: FromWorker) => guarded(() => onMessage(slot, message)));
      worker.on("error", (error) => {
        slot.failure ??= error.message;
      });
      worker.on("messageerror", (error) => {
        slot.failure ??= error.message;
        void slot.stop();
      });
      // Its handling calls ours (`onDone`): a throw there fails the import like any other.
      worker.on("exit", (code) => guarded(() => onExit(slot, code)));
    };
    let finishing = false;
    const finishAll = async () => {
      if (finishing) return;
      if (doneCount < next) return; // files still in flight
      if (next < files.length && (slots.size > 0 || starting > 0)) return;
      finishing = true;
      // A worker still starting has written nothing: it is stopped, not asked to flush.
      const idle = [...slots].filter((slot) => !slot.ready);
      for (const slot of idle) slot.finished = () => {};
      await Promise.all(idle.map((slot) => slot.stop()));
      const errors = await Promise.all(
        [...slots]
          .filter((slot) => slot.ready)
          .map(
            (slot) =>
              new Promise<string | undefined>((settle) => {
                slot.finished = settle;
                slot.send({ type: "finish" });
              }),
          ),
      );
      await Promise.all([...slots].map((slot) => slot.stop()));
      const error = errors.find((message) => message !== undefined);
      if (error !== undefined) {
        reject(new Error(`an import worker could not flush its logs: ${error}`));
        return;
      }
      resolve({
        later: files.flatMap((file, index) =>
          later[index] === undefined ? [] : [{ report: file.report, sessions: later[index]! }],
        ),
        notStarted: files.slice(next),
        started,
      });
    };
    /** This thread as one more importer; its messages go through the event loop like a worker's. */
    const startHere = () => {
      // Stopped when the import fails: files and answers already queued are dropped.
      let stopped = false;
      const here: Slot = {
        send: (message) =>
          setImmediate(() => {
            if (!stopped) serve(message);
          }),
        stop: async () => {
          stopped = true;
        },
        ready: true,
        files: new Set(),
        window: 1,
        failure: undefined,
        finished: undefined,
      };
      const answer = (message: FromWorker) =>
        setImmediate(() => guarded(() => onMessage(here, message)));
      const serve = serveImports(
        new RunWriter(options.store, options.dryRun),
        answer,
        (index, error) =>
          answer({
            type: "done",
            index,
            result: { entries: 0, skipped: [], sessions: [], error: describe(error) },
            later: [],
          }),
      );
      slots.add(here);
      dispatch(here);
    };
    const count = Math.max(1, Math.min(options.workers, files.length));
    if (files.length === 0) void finishAll();
    else {
      guarded(() => {
        for (let index = 0; index < count; index += 1) start();
        if (options.thisThread !== false) startHere();
      });
    }
  });
}
