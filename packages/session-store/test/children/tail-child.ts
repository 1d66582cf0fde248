/**
 * A process that dies (SIGKILL) while keeping a log's tail, for the tail crash test: it appends
 * one event to `sessionId` and is killed inside the `rename(2)` that would put the tail's temp
 * file in place (its bytes written). Prints "temp <temp path>" just before dying.
 *
 *   tail-child <home> <sessionId>
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { createSessionStore } from "../../src/index";

const [home, sessionId] = process.argv.slice(2);
if (home === undefined || sessionId === undefined) {
  throw new Error("usage: tail-child <home> <sessionId>");
}
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
const store = createSessionStore({ home });
const rename = fs.renameSync;
fs.renameSync = (from, to) => {
  if (String(to).endsWith(`/tails/${sessionId}.json`)) {
    process.stdout.write(`temp ${String(from)}\n`);
    process.kill(process.pid, "SIGKILL");
  }
  rename(from, to);
};
syncBuiltinESMExports();
const writer = await store.openWriter(sessionId);
await writer.append([{ type: "x-test-note", runId: "r", text: "one more" }]);
await writer.close();
process.stdout.write("not killed\n");
