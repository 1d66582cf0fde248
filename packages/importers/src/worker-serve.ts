/**
 * The file-by-file side of an import pool: what a worker thread does with each message, also run
 * on the importing thread itself (which takes files like a worker does).
 */
import { convertInto, describe, keysOf, type RunWriter, reportOf } from "./import-file";
import { unitFromSpec } from "./locate";
import type { FromWorker, ToWorker } from "./worker-protocol";

/**
 * The message handler of one importing thread. `run` writes into that thread's store; `post`
 * answers; `fail` gets what escapes a file's own handling (a worker stops on it, the importing
 * thread reports the file as failed).
 */
export function serveImports(
  run: RunWriter,
  post: (message: FromWorker) => void,
  fail: (index: number, error: unknown) => void,
): (message: ToWorker) => void {
  const waiting = new Map<number, (written: string[]) => void>();
  const importFile = async (index: number, message: Extract<ToWorker, { type: "file" }>) => {
    const unit = unitFromSpec(message.spec);
    const report = reportOf(unit);
    const sessions = convertInto(unit, report);
    const keys = sessions === undefined ? [] : keysOf(sessions);
    // The import answers once every earlier file touching these keys is written.
    const written = new Promise<string[]>((resolve) => waiting.set(index, resolve));
    post({ type: "keys", index, keys });
    for (const key of await written) run.written.add(key);
    const later = sessions === undefined ? [] : await run.writeFile(report, sessions);
    const { entries, skipped, error } = report;
    const result = { entries, skipped, sessions: report.sessions };
    post({
      type: "done",
      index,
      result: error === undefined ? result : { ...result, error },
      later,
    });
  };
  return (message) => {
    switch (message.type) {
      case "file":
        importFile(message.index, message).catch((error: unknown) => fail(message.index, error));
        return;
      case "go":
        waiting.get(message.index)?.(message.written);
        waiting.delete(message.index);
        return;
      case "finish":
        run.finish().then(
          () => post({ type: "finished" }),
          (error: unknown) => post({ type: "finished", error: describe(error) }),
        );
        return;
    }
  };
}
