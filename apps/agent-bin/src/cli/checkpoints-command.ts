import { parseArgs } from "node:util";
import {
  createHost,
  listSessionCheckpoints,
  reclaimCheckpoints,
  type SessionCheckpoint,
} from "@tapedeck/host";
import { CliUsageError, type Io } from "./io";

export const CHECKPOINTS_USAGE = `Usage: tapedeck checkpoints ID [--json]   list a session's checkpoints with the files each changed
       tapedeck checkpoints gc [--dry-run]  reclaim checkpoints no session (outside the trash) references

A checkpoint records the workspace's files at each turn's start and after each tool that may change
them; \`tapedeck rewind ID@SEQ\` restores one. TAPEDECK_CHECKPOINTS=off turns them off. A run
watches its workspace so each checkpoint looks only at what changed;
TAPEDECK_CHECKPOINT_MONITOR=off turns the watcher off (every checkpoint then reads every file's
stat data).`;

const LETTER = { added: "A", modified: "M", deleted: "D", renamed: "R", mode: "T" } as const;

function describe(entry: SessionCheckpoint): string {
  const what = entry.type === "turn/start" ? "turn start" : (entry.toolName ?? "tool");
  const head = `  @${entry.seq}`.padEnd(9) + what.padEnd(16);
  const { checkpoint } = entry;
  if (checkpoint.id === undefined) return `${head}skipped: ${checkpoint.skipped ?? "unknown"}`;
  const count = checkpoint.changed.length + (checkpoint.more ?? 0);
  const files = checkpoint.changed
    .slice(0, 8)
    .map((change) =>
      change.from === undefined
        ? `${LETTER[change.change]} ${change.path}`
        : `R ${change.from} -> ${change.path}`,
    );
  if (count > files.length) files.push(`… ${count - files.length} more`);
  const omitted = (checkpoint.omitted ?? []).length;
  return `${head}${checkpoint.id.slice(0, 12)}  ${count === 0 ? "no change" : `${count} changed: ${files.join(", ")}`}${omitted > 0 ? ` (${omitted} too large, not recorded)` : ""}`;
}

/** `tapedeck checkpoints ID | gc`. */
export async function checkpointsCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean" },
      "dry-run": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(`${CHECKPOINTS_USAGE}\n`);
    return 0;
  }
  const [first, ...extra] = positionals;
  if (first === undefined || extra.length > 0) {
    throw new CliUsageError(`give one session id, or gc.\n\n${CHECKPOINTS_USAGE}`);
  }
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    if (first === "gc") {
      if (!values["dry-run"]) host.assertWritable();
      const { before, freed: bytes } = await reclaimCheckpoints(host.store, {
        dryRun: values["dry-run"] === true,
      });
      const mb = (value: number) => `${(value / 1e6).toFixed(1)} MB`;
      io.stdout.write(
        values["dry-run"]
          ? `Checkpoints: ${mb(before.bytes)} in ${before.files} files; gc would free at least ${mb(bytes)}.\n`
          : `Checkpoints: ${mb(before.bytes)} before, ${mb(bytes)} freed.\n`,
      );
      return 0;
    }
    const sessionId = await host.resolveSessionId(first);
    const listing = await listSessionCheckpoints(host.store, sessionId);
    if (values.json) {
      io.stdout.write(`${JSON.stringify(listing)}\n`);
      return 0;
    }
    if (listing.checkpoints.length === 0) {
      io.stdout.write(
        `Session ${sessionId} has no checkpoints (they were off, or it predates them).\n`,
      );
      return 0;
    }
    io.stdout.write(`Checkpoints of session ${sessionId} (${listing.cwd}):\n`);
    for (const entry of listing.checkpoints) io.stdout.write(`${describe(entry)}\n`);
    io.stdout.write(`Rewind with: tapedeck rewind ${sessionId.slice(0, 8)}@SEQ [--dry-run]\n`);
    return 0;
  } finally {
    host.close();
  }
}
