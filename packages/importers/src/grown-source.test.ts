/**
 * A source file that grew is an append, not a fork: what a person's disk holds while the other
 * tool runs is a line prefix of the file it ends as, so importing any prefix and then the whole
 * file must leave one session per source session, the earlier log a byte prefix of the later.
 * Every prefix of the real samples is tried, in process.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";
import { splitLines } from "./lines";
import { convertClaudeCode } from "./sources/claude-code";
import { convertCodex } from "./sources/codex";
import type { SourceFile } from "./sources/common";
import { convertPi } from "./sources/pi";
import type { Conversion } from "./types";

const samples = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));

const sources = {
  "claude-code": convertClaudeCode,
  codex: convertCodex,
  pi: (file: SourceFile) => convertPi(file),
} as const satisfies Record<string, (file: SourceFile) => Conversion>;
type LineSource = keyof typeof sources;

/** The sample's one `.jsonl` file, with the folders above it inside the sample folder. */
function sampleFile(source: LineSource): { path: string; relative: string } {
  const walk = (dir: string, relative: string): { path: string; relative: string } | undefined => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const inner = join(relative, entry.name);
      if (entry.isDirectory()) {
        const found = walk(join(dir, entry.name), inner);
        if (found !== undefined) return found;
      } else if (entry.name.endsWith(".jsonl"))
        return { path: join(dir, entry.name), relative: inner };
    }
    return undefined;
  };
  const found = walk(join(samples, source), "");
  if (found === undefined) throw new Error(`no sample for ${source}`);
  return found;
}

/** Every cut a running tool can leave: after each whole line, and halfway through each line. */
function cuts(text: Buffer): number[] {
  const ends: number[] = [];
  let start = 0;
  for (let end = text.indexOf(10); end !== -1; end = text.indexOf(10, start)) {
    ends.push(start + Math.floor((end - start) / 2), end + 1);
    start = end + 1;
  }
  return ends;
}

/** Every log of the store, by session id: its bytes. */
async function logs(store: SessionStore): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  for (const listing of await store.list()) {
    const reader = store.openLogReader(listing.sessionId)!;
    try {
      found.set(listing.sessionId, reader.readAt(0, listing.size)!);
    } finally {
      reader.close();
    }
  }
  return found;
}

describe.each(Object.keys(sources) as LineSource[])("a growing %s source", (source) => {
  const sample = sampleFile(source);
  const bytes = readFileSync(sample.path);

  it("converts every prefix to a prefix of what the whole file converts to", () => {
    const convert = sources[source];
    const fileOf = (data: Buffer): SourceFile => ({
      path: sample.path,
      lines: splitLines(data, { path: sample.path }).lines,
    });
    const whole = new Map(
      convert(fileOf(bytes)).sessions.map((session) => [session.key.sessionId, session]),
    );
    for (const cut of cuts(bytes)) {
      for (const session of convert(fileOf(bytes.subarray(0, cut))).sessions) {
        const grown = whole.get(session.key.sessionId);
        expect(grown, `${session.key.sessionId} after ${cut} bytes`).toBeDefined();
        expect(grown!.createdAt).toBe(session.createdAt);
        expect(grown!.events.slice(0, session.events.length), `after ${cut} bytes`).toEqual(
          session.events,
        );
      }
    }
  });

  it("imports every line prefix and then the whole file as one session, the old log a byte prefix of the new", async () => {
    const lineEnds = cuts(bytes).filter((_, index) => index % 2 === 1);
    const root = testTempDir("tapedeck-grown-");
    const target = join(root, "source", sample.relative);
    mkdirSync(join(target, ".."), { recursive: true });
    // The whole file alone: the sessions it makes.
    writeFileSync(target, bytes);
    const alone = createSessionStore({ home: join(root, "alone") });
    await importSessions({ store: alone, source, paths: [join(root, "source")] });
    const expected = await logs(alone);
    for (const [index, end] of lineEnds.entries()) {
      const home = join(root, `home-${index}`);
      const store = createSessionStore({ home });
      writeFileSync(target, bytes.subarray(0, end));
      await importSessions({ store, source, paths: [join(root, "source")] });
      const before = await logs(store);
      writeFileSync(target, bytes);
      const after = await importSessions({ store, source, paths: [join(root, "source")] });
      const actions = after.files.flatMap((file) => file.sessions.map((s) => s.action));
      expect(actions, `after line ${index + 1}`).not.toContain("forked");
      const now = await logs(store);
      expect([...now.keys()].sort(), `after line ${index + 1}`).toEqual(
        [...expected.keys()].sort(),
      );
      for (const [id, log] of before) {
        expect(
          now.get(id)!.subarray(0, log.length).equals(log),
          `${id} after line ${index + 1}`,
        ).toBe(true);
      }
      for (const [id, log] of now) expect(log.equals(expected.get(id)!), id).toBe(true);
    }
    // Two imports and a listing per line of the sample (81 for pi): in process, no binary.
  }, 60_000);
});
