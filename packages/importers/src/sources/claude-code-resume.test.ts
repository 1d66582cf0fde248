/**
 * A grown Claude Code transcript converted from the state kept after its first lines: the events
 * are the ones a conversion of the whole file has after them, at every line, the state kept as
 * JSON in between; anything that is not the chain going on is refused (the caller converts the
 * whole file).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { splitLines } from "../lines";
import { convertClaudeCode } from "./claude-code";
import {
  convertClaudeCodeKeeping,
  parseClaudeCodeState,
  resumeClaudeCode,
} from "./claude-code-resume";
import type { SourceFile } from "./common";

const folder = fileURLToPath(
  new URL("../../__fixtures__/samples/claude-code/-home-marco-projects-spotter", import.meta.url),
);
const sample = join(folder, readdirSync(folder).find((name) => name.endsWith(".jsonl"))!);

const id = "5f0c0000-0000-4000-8000-000000000001";
let n = 0;
/** One entry of a chain: its parent is the entry before. */
function entry(fields: Record<string, unknown>): Record<string, unknown> {
  n += 1;
  return {
    uuid: `e${n}`,
    parentUuid: n === 1 ? null : `e${n - 1}`,
    sessionId: id,
    cwd: "/work",
    timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
    ...fields,
  };
}
const user = (content: unknown) => entry({ type: "user", message: { role: "user", content } });
const assistant = (content: unknown[]) =>
  entry({ type: "assistant", message: { role: "assistant", model: "claude-x", content } });
const chainLines = [
  { type: "summary", summary: "Writing AGENTS.md", leafUuid: "e4" },
  user("<command-name>/init</command-name>\n<command-args></command-args>"),
  user("Please write an AGENTS.md for this repository."),
  assistant([{ type: "text", text: "Reading it." }]),
  assistant([{ type: "tool_use", id: "t1", name: "Read", input: { path: "a" } }]),
  user([{ type: "tool_result", tool_use_id: "t1", content: "a's text" }]),
  entry({ type: "progress" }),
  user("and the README?"),
  assistant([{ type: "tool_use", id: "t1", name: "Read", input: { path: "b" } }]),
  user([{ type: "tool_result", tool_use_id: "t1", content: "b's text" }]),
  assistant([{ type: "text", text: "Done." }]),
];
// Claude Code sometimes writes an entry twice: the copy is dropped.
chainLines.splice(9, 0, chainLines[7]!);
const chain = Buffer.from(`${chainLines.map((line) => JSON.stringify(line)).join("\n")}\n`);

describe.each([
  ["the sample transcript", readFileSync(sample)],
  ["a chain with a slash command, calls, a summary and bookkeeping", chain],
])("resuming %s", (_name, bytes) => {
  const lines = splitLines(bytes, { path: sample }).lines;
  const fileOf = (from: number, to: number): SourceFile => ({
    path: sample,
    lines: lines.slice(from, to),
  });
  const whole = convertClaudeCode(fileOf(0, lines.length)).sessions[0]!;
  const wholeState = convertClaudeCodeKeeping(fileOf(0, lines.length)).state();

  it("after any line it keeps a state at, converts only the new entries to what the whole file has after them", () => {
    let resumed = 0;
    let states = 0;
    for (let cut = 1; cut < lines.length; cut += 1) {
      const before = convertClaudeCodeKeeping(fileOf(0, cut));
      const kept = before.state();
      if (kept === undefined) continue;
      states += 1;
      const state = parseClaudeCodeState(JSON.parse(JSON.stringify(kept)));
      expect(state, `state after ${cut} lines`).toBeDefined();
      const after = resumeClaudeCode(state!, fileOf(cut, lines.length));
      // Refused exactly when the whole file is no longer one chain (it is converted whole then).
      expect(after === undefined, `resumed after ${cut} lines`).toBe(wholeState === undefined);
      if (after === undefined) continue;
      resumed += 1;
      // Only the new lines were converted.
      expect(after!.conversion.entries).toBeLessThanOrEqual(lines.length - cut);
      expect(before.conversion.entries + after!.conversion.entries).toBe(
        convertClaudeCode(fileOf(0, lines.length)).entries,
      );
      const [head] = before.conversion.sessions;
      const [tail] = after!.conversion.sessions;
      const events = [...(head?.events ?? []), ...(tail?.events ?? [])];
      expect(JSON.stringify(events), `cut after ${cut} lines`).toBe(JSON.stringify(whole.events));
      const ended = tail ?? head!;
      expect([ended.key, ended.cwd, ended.createdAt, ended.title]).toEqual([
        whole.key,
        whole.cwd,
        whole.createdAt,
        whole.title,
      ]);
      expect(after!.state()).toEqual(wholeState);
    }
    // The synthetic chain resumes after every line but the summary alone (no session yet); the
    // real sample (parallel tool results hang from their calls) is one chain only in its first
    // lines: every resume from those is refused, its whole file being no chain.
    expect(states).toBeGreaterThan(0);
    if (bytes === chain) expect(resumed).toBe(lines.length - 2);
  });
});

describe("resuming a Claude Code transcript", () => {
  const lines = splitLines(chain, { path: "/c.jsonl" }).lines;
  const state = convertClaudeCodeKeeping({ path: "/c.jsonl", lines }).state()!;
  const more = (value: Record<string, unknown>): SourceFile => ({
    path: "/c.jsonl",
    lines: splitLines(Buffer.from(`${JSON.stringify(value)}\n`), { path: "/c.jsonl" }).lines.map(
      (line) => ({ ...line, line: lines.length + 1 }),
    ),
  });

  it("refuses new entries that do not go on from the chain's tip", () => {
    expect(state).toBeDefined();
    const prompt = {
      type: "user",
      sessionId: id,
      cwd: "/work",
      message: { role: "user", content: "x" },
    };
    expect(
      resumeClaudeCode(state, more({ ...prompt, uuid: "n1", parentUuid: "e2" })),
    ).toBeUndefined();
    expect(
      resumeClaudeCode(
        state,
        more({ ...prompt, uuid: "n1", parentUuid: "e10", isSidechain: true }),
      ),
    ).toBeUndefined();
    expect(
      resumeClaudeCode(state, more({ ...prompt, uuid: "n1", parentUuid: "e10" })),
    ).toBeDefined();
  });

  it("keeps no state for a transcript with sub-agents or a branch", () => {
    const subagent = { path: "/c/subagents/agent-1.jsonl", lines };
    expect(
      convertClaudeCodeKeeping({ path: "/c.jsonl", lines }, [subagent]).state(),
    ).toBeUndefined();
    const branched = Buffer.concat([
      chain,
      Buffer.from(`${JSON.stringify({ ...chainLines[1], uuid: "b1", parentUuid: "e1" })}\n`),
    ]);
    const file = { path: "/c.jsonl", lines: splitLines(branched, { path: "/c.jsonl" }).lines };
    expect(convertClaudeCodeKeeping(file).state()).toBeUndefined();
    expect(parseClaudeCodeState({ ...state, ids: [] })).toBeUndefined();
  });
});
