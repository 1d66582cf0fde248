import { parseArgs } from "node:util";
import { createHost, indexPath, openIndex } from "@tapedeck/host";
import type { SyncProgress } from "@tapedeck/session-query/sqlite";
import type { Io } from "./io";

function bar(progress: SyncProgress): string {
  const width = 30;
  const ratio = progress.sessionsTotal === 0 ? 1 : progress.sessionsDone / progress.sessionsTotal;
  const filled = Math.round(ratio * width);
  return `\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${progress.sessionsDone}/${progress.sessionsTotal} sessions, ${progress.eventsIndexed} events`;
}

/** `tapedeck index [--rebuild]`: brings the search index up to date. Returns the exit code. */
export async function indexCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { rebuild: { type: "boolean" } },
  });
  const host = createHost({ env: io.env });
  const engine = openIndex(host.store, (text) => io.stderr.write(text));
  try {
    const onProgress = io.interactive
      ? (progress: SyncProgress) => io.stderr.write(bar(progress))
      : undefined;
    const options = onProgress === undefined ? {} : { onProgress };
    const started = Date.now();
    const report = values.rebuild ? await engine.rebuild(options) : await engine.sync(options);
    if (io.interactive) io.stderr.write("\n");
    io.stdout.write(
      `${values.rebuild ? "Rebuilt" : "Updated"} ${indexPath(host.store.home)} in ${Date.now() - started} ms: ${report.sessionsAdded} added, ${report.sessionsUpdated} updated, ${report.sessionsRemoved} removed, ${report.eventsIndexed} events indexed.\n`,
    );
    return 0;
  } finally {
    engine.close();
  }
}
