/**
 * Proof that a change to the import's hot path leaves its output alone: imports the bench corpus
 * (`corpus.ts`) and the sample transcripts through every path a log can be written by (create,
 * append of a grown source, fork of a rewritten one, a fork by reference of a pi branch, an
 * unchanged re-import, a dry run, continuous import of sources growing in place) and prints the sha256 of every log produced,
 * with the import summaries (temp paths replaced by `<root>`).
 *
 * Run it before and after a change and compare the two outputs:
 * `pnpm exec tsx bench/log-digests.ts > before.json`, change, `… > after.json`, `diff` them.
 * Nothing in a log is random: session and run ids derive from the source, timestamps are the
 * source's, the header's agent is the store's default. (The change journal, whose generation is
 * random, is not a log and is not compared.) The corpus is written to `$TMPDIR/tapedeck-log-digests`
 * each time, as the source paths are part of the logs.
 */
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { type ImportSource, importChanged, importSessions } from "../src/index";
import { writeCorpus } from "./corpus";

const SESSIONS = Number(process.env.LOG_DIGEST_SESSIONS ?? 12);
const sources: ImportSource[] = ["claude-code", "codex", "pi", "opencode"];
// A fixed folder: the source's path is in every header's origin, so it must not change between runs.
const root = join(tmpdir(), "tapedeck-log-digests");
rmSync(root, { recursive: true, force: true });
mkdirSync(root);
const fixtures = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));
const output: Record<string, unknown> = {};

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** sha256 of every log in the home, by file name. */
function digests(home: string): Record<string, string> {
  const sessions = join(home, "sessions");
  if (!existsSync(sessions)) return {};
  const result: Record<string, string> = {};
  for (const file of filesUnder(sessions)) {
    if (!file.endsWith(".jsonl")) continue;
    result[file.slice(sessions.length + 1)] = createHash("sha256")
      .update(readFileSync(file))
      .digest("hex");
  }
  return result;
}

async function run(
  name: string,
  home: string,
  source: ImportSource,
  dir: string,
  extra: { dryRun?: boolean } = {},
): Promise<void> {
  const summary = await importSessions({
    store: createSessionStore({ home }),
    source,
    paths: [dir],
    ...extra,
  });
  output[name] = {
    summary: JSON.parse(JSON.stringify(summary).replaceAll(root, "<root>")),
    logs: digests(home),
  };
}

/** Every JSONL file cut to its first `fraction` of lines (at least one). */
function cutLines(dir: string, fraction: number): void {
  for (const file of filesUnder(dir)) {
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    const keep = Math.max(1, Math.floor(lines.length * fraction));
    writeFileSync(file, `${lines.slice(0, keep).join("\n")}\n`);
  }
}

/** Every opencode export cut to its first `fraction` of messages. */
function cutMessages(dir: string, fraction: number): void {
  for (const file of filesUnder(dir)) {
    const document = JSON.parse(readFileSync(file, "utf8"));
    const keep = Math.max(1, Math.floor(document.messages.length * fraction));
    document.messages = document.messages.slice(0, keep);
    writeFileSync(file, JSON.stringify(document, null, 2));
  }
}

/** A word of the middle of each file changed: the source was rewritten there. */
function rewrite(dir: string): void {
  for (const file of filesUnder(dir)) {
    const text = readFileSync(file, "utf8");
    // A lowercase word between spaces sits inside a string value, never in JSON's structure.
    const word = / [a-z]{3,}[0-9]* /g;
    word.lastIndex = Math.floor(text.length * 0.6);
    const found = word.exec(text);
    if (found === null) continue;
    const end = found.index + found[0].length;
    writeFileSync(file, `${text.slice(0, found.index)}${found[0].toUpperCase()}${text.slice(end)}`);
  }
}

const corpus = join(root, "corpus");
writeCorpus(corpus, SESSIONS);
// Copied, as the corpus, so that two checkouts give the same paths.
cpSync(fixtures, join(root, "samples"), { recursive: true });
for (const source of sources) {
  for (const [label, original] of [
    ["bench", join(corpus, source)],
    ["sample", join(root, "samples", source)],
  ] as const) {
    const name = `${source} ${label}`;
    await run(`${name}: import`, join(root, `${name}-fresh`), source, original);
    await run(`${name}: dry run`, join(root, `${name}-dry`), source, original, { dryRun: true });
    // A source that grew, then was rewritten: append, unchanged, fork.
    const copy = join(root, `${name}-copy`);
    const home = join(root, `${name}-grown`);
    cpSync(original, copy, { recursive: true });
    if (source === "opencode") cutMessages(copy, 0.5);
    else cutLines(copy, 0.5);
    await run(`${name}: half`, home, source, copy);
    rmSync(copy, { recursive: true });
    cpSync(original, copy, { recursive: true });
    await run(`${name}: grown`, home, source, copy);
    await run(`${name}: unchanged`, home, source, copy);
    rewrite(copy);
    await run(`${name}: rewritten (dry run)`, home, source, copy, { dryRun: true });
    await run(`${name}: rewritten`, home, source, copy);
  }
}
// Continuous import of sources that grow in place (a look at a third, two thirds, all of each
// file): what a watch writes, its grown looks converting only the new lines where it can.
for (const source of ["claude-code", "codex"] as const) {
  for (const [label, original] of [
    ["bench", join(corpus, source)],
    ["sample", join(root, "samples", source)],
  ] as const) {
    const name = `${source} ${label} watched`;
    const user = join(root, `${name}-user`);
    const folder =
      source === "codex" ? join(user, "codex", "sessions") : join(user, "claude", "projects");
    const env = {
      HOME: user,
      CODEX_HOME: join(user, "codex"),
      CLAUDE_CONFIG_DIR: join(user, "claude"),
    };
    const home = join(root, `${name}-home`);
    const store = createSessionStore({ home });
    for (const fraction of [1 / 3, 2 / 3, 1]) {
      if (!existsSync(folder)) cpSync(original, folder, { recursive: true });
      // Grown in place (same inode), as the tool appends to its file.
      for (const file of filesUnder(original)) {
        const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
        const keep = Math.max(1, Math.floor(lines.length * fraction));
        writeFileSync(
          join(folder, file.slice(original.length)),
          `${lines.slice(0, keep).join("\n")}\n`,
        );
      }
      const look = await importChanged({
        store,
        stateDir: join(home, "import"),
        env,
        sources: [source],
      });
      output[`${name}: ${Math.round(fraction * 3)}/3`] = {
        summaries: JSON.parse(JSON.stringify(look.summaries).replaceAll(root, "<root>")),
        logs: digests(home),
      };
    }
  }
}
rmSync(root, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(output, null, 1)}\n`);
