import path from "node:path";
import { parseArgs } from "node:util";
import {
  createHost,
  parseForkSpec,
  type RewindReport,
  rewindSession,
  undoLastRewind,
} from "@tapedeck/host";
import { CliUsageError, type Io } from "./io";

export const REWIND_USAGE = `Usage: tapedeck rewind ID@SEQ [--files-only] [--dry-run] [--force] [--json]
       tapedeck rewind --undo [--cwd DIR] [--dry-run] [--json]

Puts the workspace's files back to how they were when event SEQ was written (the latest
checkpoint at or before it) and forks the conversation there: \`tapedeck run -c\` continues the
fork. \`tapedeck checkpoints ID\` lists the checkpoints.
  --files-only  restore the files, do not fork
  --dry-run     list what would change (added, modified, deleted); change nothing
  --force       overwrite files changed by hand since the agent last touched them (without a
                terminal a rewind refuses them; on one it asks)
  --undo        bring back the files as they were before the last rewind (hand edits included)
  --json        print the report as JSON`;

const LETTER = { added: "A", modified: "M", deleted: "D" } as const;

function printChanges(io: Io, changes: RewindReport["changes"], verb: string): void {
  if (changes.length === 0) {
    io.stdout.write(`No file ${verb}: the files already match.\n`);
    return;
  }
  for (const change of changes) io.stdout.write(`  ${LETTER[change.change]} ${change.path}\n`);
}

/** `tapedeck rewind`. */
export async function rewindCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      "files-only": { type: "boolean" },
      "dry-run": { type: "boolean" },
      force: { type: "boolean" },
      json: { type: "boolean" },
      undo: { type: "boolean" },
      cwd: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(`${REWIND_USAGE}\n`);
    return 0;
  }
  const dryRun = values["dry-run"] === true;
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  try {
    if (!dryRun) host.assertWritable();
    if (values.undo) {
      if (positionals.length > 0) throw new CliUsageError("--undo takes no session id.");
      const cwd = path.resolve(io.cwd, values.cwd ?? ".");
      const undone = await undoLastRewind(host.store.home, cwd, { dryRun });
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ ...undone, dryRun })}\n`);
        return 0;
      }
      io.stdout.write(
        `${dryRun ? "Would restore" : "Restored"} ${undone.root} as it was before the last rewind:\n`,
      );
      printChanges(io, undone.changes, dryRun ? "would change" : "changed");
      return 0;
    }
    const [spec, ...extra] = positionals;
    if (spec === undefined || extra.length > 0) {
      throw new CliUsageError(`give one ID@SEQ (or --undo).\n\n${REWIND_USAGE}`);
    }
    const { id, seq } = parseForkSpec(spec);
    const sessionId = await host.resolveSessionId(id);
    const report = await rewindSession(host.store, {
      sessionId,
      ...(seq === undefined ? {} : { seq }),
      filesOnly: values["files-only"] === true,
      dryRun,
      force: values.force === true,
      ...(io.interactive
        ? {
            confirm: async (paths: readonly string[]) => {
              io.stderr.write(
                `These files changed since the agent last touched them:\n${paths.map((file) => `  ${file}\n`).join("")}`,
              );
              const answer = await io.ask("Overwrite them? (the rewind can be undone) [y/N] ");
              return /^y(es)?$/i.test(answer.trim());
            },
          }
        : {}),
    });
    if (values.json) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
      return 0;
    }
    const where = `${report.root} to checkpoint ${report.checkpoint.slice(0, 12)} (event ${report.checkpointSeq})`;
    io.stdout.write(`${dryRun ? "Would restore" : "Restored"} ${where}:\n`);
    printChanges(io, report.changes, dryRun ? "would change" : "changed");
    if (report.handEdited.length > 0) {
      io.stdout.write(
        `${dryRun ? "Would overwrite" : "Overwrote"} hand edits: ${report.handEdited.join(", ")}\n`,
      );
    }
    if (report.forkSessionId !== undefined) {
      io.stdout.write(
        `Forked session ${sessionId} at event ${report.seq} into ${report.forkSessionId}: \`tapedeck run -c "…"\` continues it.\n`,
      );
    }
    if (!dryRun) io.stdout.write("Undo with: tapedeck rewind --undo\n");
    return 0;
  } finally {
    host.close();
  }
}
