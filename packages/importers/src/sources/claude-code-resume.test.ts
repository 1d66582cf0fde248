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
import { claudeChainBuilder } from "./test-claude-code-chain";

const folder = fileURLToPath(
  new URL("../../__fixtures__/samples/claude-code/-home-marco-projects-spotter", import.meta.url),
);
const sample = join(folder, readdirSync(folder).find((name) => name.endsWith(".jsonl"))!);

const id = "5f0c0000-0000-4000-8000-000000000001";
const { entry, user, assistant } = claudeChainBuilder(id);
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

/** A made-up transcript with parallel tool calls (each result hangs from its own call). */
function parallelLines(): Record<string, unknown>[] {
  let m = 0;
  const at = (uuid: string, parentUuid: string | null, fields: Record<string, unknown>) => {
    m += 1;
    return {
      uuid,
      parentUuid,
      sessionId: id,
      cwd: "/work",
      timestamp: new Date(Date.UTC(2026, 10, 2, 0, 0, m)).toISOString(),
      ...fields,
    };
  };
  const said = (role: string, content: unknown) => ({
    type: role,
    message: { role, ...(role === "assistant" ? { model: "claude-x" } : {}), content },
  });
  const call = (callId: string) =>
    said("assistant", [{ type: "tool_use", id: callId, name: "Read", input: { path: callId } }]);
  const result = (callId: string) =>
    said("user", [{ type: "tool_result", tool_use_id: callId, content: `${callId}'s text` }]);
  return [
    { type: "file-history-snapshot", messageId: "x", snapshot: {} },
    at("p1", null, said("user", "Read a, b and c.")),
    at("a1", "p1", call("t1")),
    at("g1", "a1", { type: "progress" }),
    at("a2", "g1", call("t2")),
    at("a3", "a2", call("t3")),
    at("r1", "a1", result("t1")),
    at("r3", "a3", result("t3")),
    at("r2", "a2", result("t2")),
    at("a4", "r3", said("assistant", [{ type: "text", text: "Read them." }])),
    at("p2", "a4", said("user", "and d, e?")),
    at("a5", "p2", call("t4")),
    at("a6", "a5", call("t5")),
    at("r4", "a5", result("t4")),
    at("r5", "a6", result("t5")),
    at(
      "i1",
      "r5",
      said("user", [{ type: "text", text: "[Request interrupted by user for tool use]" }]),
    ),
    at("c1", null, {
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      logicalParentUuid: "i1",
    }),
    at("s1", "c1", {
      ...said("user", "Summary of the conversation so far."),
      isCompactSummary: true,
    }),
    at("p3", "s1", said("user", "go on")),
    at("a7", "p3", call("t6")),
    at("a8", "a7", call("t7")),
    at("r6", "a7", result("t6")),
    at("r7", "a8", result("t7")),
    at("a9", "r7", said("assistant", [{ type: "text", text: "Done." }])),
  ];
}
const parallel = Buffer.from(
  `${parallelLines()
    .map((line) => JSON.stringify(line))
    .join("\n")}\n`,
);

describe.each([
  // Its first 3 lines are bookkeeping: no session yet, no state.
  ["the sample transcript (parallel tool calls)", readFileSync(sample), 3],
  ["a chain with a slash command, calls, a summary and bookkeeping", chain, 1],
  ["a transcript with parallel calls, an interrupt and a compaction", parallel, 1],
])("resuming %s", (_name, bytes, bare) => {
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
    // Every line count but the first lines without a session keeps a state and resumes: the
    // results of parallel calls hang from their own calls, and the whole file is one session.
    expect(wholeState).toBeDefined();
    expect(states).toBe(lines.length - 1 - bare);
    expect(resumed).toBe(states);
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

  it("keeps no entry in its turn before a prompt was typed (a session only started with a command)", () => {
    const commandOnly = { path: "/c.jsonl", lines: lines.slice(0, 2) };
    const kept = convertClaudeCodeKeeping(commandOnly).state();
    expect(kept).toMatchObject({ prompted: false, turn: [] });
    expect(state).toMatchObject({ prompted: true });
  });

  it("keeps no state for a transcript with sub-agents or a branch", () => {
    const subagent = { path: "/c/subagents/agent-1.jsonl", lines };
    expect(
      convertClaudeCodeKeeping({ path: "/c.jsonl", lines }, [subagent]).state(),
    ).toBeUndefined();
    // The prompt typed again, from where the first one was: a second session.
    const branched = Buffer.concat([
      chain,
      Buffer.from(`${JSON.stringify({ ...chainLines[2], uuid: "b1", parentUuid: "e1" })}\n`),
    ]);
    const file = { path: "/c.jsonl", lines: splitLines(branched, { path: "/c.jsonl" }).lines };
    expect(convertClaudeCodeKeeping(file).state()).toBeUndefined();
    expect(parseClaudeCodeState({ ...state, ids: [] })).toBeUndefined();
  });
});

describe("resuming a Claude Code transcript with parallel tool calls", () => {
  const lines = splitLines(parallel, { path: "/p.jsonl" }).lines;
  const state = convertClaudeCodeKeeping({ path: "/p.jsonl", lines }).state()!;
  const more = (...values: Record<string, unknown>[]): SourceFile => ({
    path: "/p.jsonl",
    lines: splitLines(Buffer.from(values.map((value) => `${JSON.stringify(value)}\n`).join("")), {
      path: "/p.jsonl",
    }).lines.map((line, index) => ({ ...line, line: lines.length + 1 + index })),
  });
  const prompt = (uuid: string, parentUuid: string, text = "x") => ({
    type: "user",
    uuid,
    parentUuid,
    sessionId: id,
    cwd: "/work",
    timestamp: "2026-11-03T00:00:00.000Z",
    message: { role: "user", content: text },
  });
  const whole = (...values: Record<string, unknown>[]) =>
    convertClaudeCodeKeeping({
      path: "/p.jsonl",
      lines: splitLines(
        Buffer.concat([
          parallel,
          ...values.map((value) => Buffer.from(`${JSON.stringify(value)}\n`)),
        ]),
        { path: "/p.jsonl" },
      ).lines,
    });

  it("resumes a prompt below the last one, from the tip or from a side result of its turn", () => {
    expect(state.prompted).toBe(true);
    // r6 is the result of the turn's first parallel call: a side entry, below the prompt p3.
    for (const parent of ["a9", "r6"]) {
      const resumed = resumeClaudeCode(state, more(prompt("n1", parent)));
      expect(resumed, parent).toBeDefined();
      expect(whole(prompt("n1", parent)).conversion.sessions).toHaveLength(1);
      expect(resumed!.state()).toEqual(whole(prompt("n1", parent)).state());
    }
  });

  it("refuses a prompt that starts a second session: edited, or in another subtree than the last", () => {
    // p3 typed again from where it was typed (an edit): the whole file is two sessions.
    expect(resumeClaudeCode(state, more(prompt("n1", "s1")))).toBeUndefined();
    expect(whole(prompt("n1", "s1")).conversion.sessions).toHaveLength(2);
    expect(whole(prompt("n1", "s1")).state()).toBeUndefined();
    // A prompt below a side result (one session), then one from the tip (two subtrees: two).
    const side = prompt("n1", "r6");
    const tip = prompt("n2", "a9");
    expect(resumeClaudeCode(state, more(side))).toBeDefined();
    expect(resumeClaudeCode(state, more(side, tip))).toBeUndefined();
    expect(whole(side, tip).conversion.sessions).toHaveLength(2);
    // Bookkeeping and results hanging anywhere open nothing: still one session.
    const late = {
      ...prompt("n3", "a1"),
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "late" }],
      },
    };
    expect(resumeClaudeCode(state, more(late))).toBeDefined();
    expect(whole(late).state()).toBeDefined();
  });
});
