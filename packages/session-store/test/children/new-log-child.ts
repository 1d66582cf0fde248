/**
 * A process that dies (SIGKILL) while creating a new log, for the new-log crash test: it creates
 * `first` without fsync (as an import does: the next logs go into temp files made ahead), waits
 * for those, then creates `second` and is killed inside the `link(2)` that would put it in place,
 * its bytes written. Prints "spare <temp path>" just before dying.
 *
 *   new-log-child <home> <first> <second>
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { createSessionStore } from "../../src/index";

const [home, first, second] = process.argv.slice(2);
if (home === undefined || first === undefined || second === undefined) {
  throw new Error("usage: new-log-child <home> <first> <second>");
}
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
const store = createSessionStore({ home });
const seed = [{ type: "x-test-note" as const, runId: "r", text: "a note ".repeat(2000) }];
await store.create({ cwd: "/tmp", sessionId: first, seed, durable: false });
// The spares are made on the thread pool: wait until all 16 are on disk, then one more turn for
// their open callbacks.
const spares = () => fs.readdirSync(store.sessionsDir).filter((name) => name.endsWith(".tmp"));
while (spares().length < 16) await new Promise((resolve) => setTimeout(resolve, 5));
await new Promise((resolve) => setTimeout(resolve, 5));
const link = fs.linkSync;
fs.linkSync = (existing, target) => {
  if (String(target).endsWith(`${second}.jsonl`)) {
    process.stdout.write(`spare ${String(existing)}\n`);
    process.kill(process.pid, "SIGKILL");
  }
  link(existing, target);
};
syncBuiltinESMExports();
await store.create({ cwd: "/tmp", sessionId: second, seed, durable: false });
process.stdout.write("not killed\n");
