/**
 * Continuous import converts only the lines a Codex rollout or a Claude Code transcript (a chain,
 * or one with parallel tool calls, as most are) grew by
 * (`grown-import.ts`): at every line count of the samples, a look after the file grew writes the
 * same logs, byte for byte, and reports the same as a whole import of the same files, and it
 * parses none of the lines it had converted before.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { importChanged } from "./import-changed";
import { importSessions } from "./import-run";
import { claudeChainBuilder } from "./sources/test-claude-code-chain";
import type { ImportSource } from "./types";

const samples = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));
const codexSample = join(
  samples,
  "codex/2025/12/28/rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
);

/** The Codex sample, then a reply, a call and its output, a second prompt (the sample stops early). */
function codexLines(): string[] {
  const item = (second: number, payload: Record<string, unknown>) =>
    JSON.stringify({
      timestamp: `2025-12-28T12:22:0${second}.000Z`,
      type: "response_item",
      payload,
    });
  const text = (role: string, type: string, value: string) => ({
    type: "message",
    role,
    content: [{ type, text: value }],
  });
  return [
    ...readFileSync(codexSample, "utf8").split("\n").filter(Boolean),
    item(1, text("assistant", "output_text", "Looking at them.")),
    item(2, {
      type: "function_call",
      name: "shell",
      arguments: '{"command":["ls"]}',
      call_id: "c1",
    }),
    item(3, { type: "function_call_output", call_id: "c1", output: '{"output":"a.md b.md"}' }),
    item(4, text("user", "input_text", "and the second one?")),
  ];
}

/** A Claude Code transcript that is one chain (the real sample's parallel results are not). */
function claudeChain(): string[] {
  const sessionId = "5f0c0000-0000-4000-8000-000000000002";
  const { entry, user, assistant } = claudeChainBuilder(sessionId);
  return [
    user("<command-name>/init</command-name>\n<command-args></command-args>"),
    user("Please write an AGENTS.md for this repository."),
    assistant([{ type: "text", text: "Reading it." }]),
    assistant([{ type: "tool_use", id: "t1", name: "Read", input: { path: "a" } }]),
    user([{ type: "tool_result", tool_use_id: "t1", content: "a's text" }]),
    entry({ type: "progress" }),
    user("and the README?"),
    "not json",
    assistant([{ type: "tool_use", id: "t2", name: "Read", input: { path: "b" } }]),
    user([{ type: "tool_result", tool_use_id: "t2", content: "b's text" }]),
    assistant([{ type: "text", text: "Done." }]),
    user("thanks"),
  ].map((line) => (typeof line === "string" ? line : JSON.stringify(line)));
}

/** The real Claude Code sample: parallel tool calls, each result hanging from its own call. */
const claudeSampleFile =
  ".claude/projects/-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl";
const claudeSample = readFileSync(join(samples, "claude-code", claudeSampleFile.slice(17)), "utf8")
  .split("\n")
  .filter(Boolean);

/** A made-up Claude Code transcript with two turns of parallel tool calls and a damaged line. */
function claudeParallel(): string[] {
  const sessionId = "5f0c0000-0000-4000-8000-000000000003";
  let n = 0;
  const at = (uuid: string, parentUuid: string | null, type: string, content: unknown) => {
    n += 1;
    return JSON.stringify({
      uuid,
      parentUuid,
      sessionId,
      cwd: "/work",
      timestamp: new Date(Date.UTC(2026, 10, 2, 0, 0, n)).toISOString(),
      type,
      message: { role: type, ...(type === "assistant" ? { model: "claude-x" } : {}), content },
    });
  };
  const call = (uuid: string, parent: string, callId: string) =>
    at(uuid, parent, "assistant", [
      { type: "tool_use", id: callId, name: "Read", input: { path: callId } },
    ]);
  const result = (uuid: string, parent: string, callId: string) =>
    at(uuid, parent, "user", [{ type: "tool_result", tool_use_id: callId, content: callId }]);
  return [
    at("p1", null, "user", "Read a, b and c."),
    call("a1", "p1", "t1"),
    call("a2", "a1", "t2"),
    call("a3", "a2", "t3"),
    result("r1", "a1", "t1"),
    result("r2", "a2", "t2"),
    "not json",
    result("r3", "a3", "t3"),
    at("a4", "r3", "assistant", [{ type: "text", text: "Read them." }]),
    at("p2", "a4", "user", "and d, e?"),
    call("a5", "p2", "t4"),
    call("a6", "a5", "t5"),
    result("r4", "a5", "t4"),
    result("r5", "a6", "t5"),
    at("a7", "r5", "assistant", [{ type: "text", text: "Done." }]),
  ];
}

const cases: { name: string; source: ImportSource; file: string; lines: string[] }[] = [
  {
    name: "the Codex sample",
    source: "codex",
    file: ".codex/sessions/2025/12/28/rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
    lines: codexLines(),
  },
  {
    name: "a Claude Code chain",
    source: "claude-code",
    file: ".claude/projects/-work/5f0c0000-0000-4000-8000-000000000002.jsonl",
    lines: claudeChain(),
  },
  {
    name: "the Claude Code sample (parallel tool calls)",
    source: "claude-code",
    file: claudeSampleFile,
    lines: claudeSample,
  },
  {
    name: "a Claude Code transcript with parallel tool calls",
    source: "claude-code",
    file: ".claude/projects/-work/5f0c0000-0000-4000-8000-000000000003.jsonl",
    lines: claudeParallel(),
  },
];

/** One source file, a home imported by looks (A) and one imported whole each time (B). */
function setup(source: ImportSource, relative: string) {
  const root = testTempDir("tapedeck-grown-import-");
  const file = join(root, "user", relative);
  mkdirSync(dirname(file), { recursive: true });
  const looked = createSessionStore({ home: join(root, "looked") });
  const whole = createSessionStore({ home: join(root, "whole") });
  const write = (lines: readonly string[]) => writeFileSync(file, `${lines.join("\n")}\n`);
  const look = async () => {
    const result = await importChanged({
      store: looked,
      stateDir: join(root, "looked", "import"),
      env: { HOME: join(root, "user") },
      sources: [source],
    });
    return result.summaries[0];
  };
  const importWhole = () => importSessions({ store: whole, source, paths: [file] });
  const sameLogs = async () => {
    const ids = await whole.sessionIds();
    expect(await looked.sessionIds()).toEqual(ids);
    for (const id of ids) {
      expect(readFileSync(looked.pathOf(id), "utf8"), id).toBe(
        readFileSync(whole.pathOf(id), "utf8"),
      );
    }
  };
  return { file, looked, whole, write, look, importWhole, sameLogs };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(cases)("a grown source: $name", ({ source, file: relative, lines }) => {
  it("imported at every line count, then grown to the whole file: the logs and the report are a whole import's", async () => {
    let continued = 0;
    for (let cut = 1; cut < lines.length; cut += 1) {
      const home = setup(source, relative);
      home.write(lines.slice(0, cut));
      const first = await home.look();
      expect(first, `${cut} lines`).toEqual(await home.importWhole());
      home.write(lines);
      const parse = vi.spyOn(JSON, "parse");
      const grown = await home.look();
      const parsedOld = parse.mock.calls.some(([text]) => lines.slice(0, cut).includes(text));
      parse.mockRestore();
      expect(grown, `${cut} lines, then all`).toEqual(await home.importWhole());
      await home.sameLogs();
      // Once a session was written from the first lines, the rest is converted from its state.
      if (first?.counts.created === 1) {
        expect(parsedOld, `${cut} lines: the old lines are parsed again`).toBe(false);
        continued += 1;
      }
    }
    expect(continued).toBeGreaterThan(lines.length / 2);
  });

  it("converts only the new lines: none of the lines converted before is parsed again", async () => {
    const home = setup(source, relative);
    // The Codex sample's prompt is its line 4, then bookkeeping (no events) up to line 11.
    const cut = source === "codex" ? 12 : Math.floor(lines.length / 2);
    for (const count of [4, cut]) {
      home.write(lines.slice(0, count));
      expect(await home.look()).toEqual(await home.importWhole());
    }
    home.write(lines);
    const parse = vi.spyOn(JSON, "parse");
    const grown = await home.look();
    const parsed = parse.mock.calls.map(([text]) => text);
    parse.mockRestore();
    expect(grown?.counts).toMatchObject({ appended: 1, created: 0, forked: 0 });
    const old = new Set(lines.slice(0, cut));
    expect(parsed.filter((text) => old.has(text))).toEqual([]);
    const added = lines.slice(cut).filter((line) => line !== "not json");
    for (const line of added) expect(parsed).toContain(line);
    expect(await home.importWhole()).toMatchObject({ counts: { appended: 1 } });
    await home.sameLogs();
  });
});

describe("a grown source converted whole", () => {
  const [codex, claude] = cases;

  it("a file rewritten (its first lines changed) is converted whole: the fork a whole import makes", async () => {
    const home = setup(codex!.source, codex!.file);
    home.write(codex!.lines.slice(0, 6));
    await home.look();
    await home.importWhole();
    const rewritten = codex!.lines.map((line, index) =>
      index === 2 ? line.replace('"timestamp":"2025', '"timestamp":"2024') : line,
    );
    expect(rewritten[2]).not.toBe(codex!.lines[2]);
    home.write(rewritten);
    const looked = await home.look();
    expect(looked?.counts.forked).toBe(1);
    expect(looked).toEqual(await home.importWhole());
    await home.sameLogs();
  });

  it("a session continued here since the last look is not appended to from the record: the fork a whole import makes", async () => {
    const home = setup(claude!.source, claude!.file);
    home.write(claude!.lines.slice(0, 5));
    const first = await home.look();
    await home.importWhole();
    const sessionId = first!.files[0]!.sessions[0]!.sessionId;
    const runId = "import-continued";
    const turn = [
      { type: "turn/end", runId: "x", status: "interrupted", ts: "2026-11-02T00:00:00.000Z" },
      { type: "turn/start", runId, policy: { approval: "ask" }, model: "m", resumed: true },
      { type: "message", runId, role: "user", content: "go on", ts: "2026-11-02T00:00:01.000Z" },
    ];
    for (const store of [home.looked, home.whole]) {
      const session = await store.readSession(sessionId);
      const open = session.openTurn;
      const drafts = [
        ...session.pendingCalls.map((call) => ({
          type: "function_call_output",
          runId: call.runId,
          callId: call.callId,
          output: "stopped",
          isError: true,
          sourceEventSeqs: [call.seq],
          ts: "2026-11-02T00:00:00.000Z",
        })),
        ...(open === null ? turn.slice(1) : [{ ...turn[0], runId: open.runId }, ...turn.slice(1)]),
      ].map((draft) => ({ ts: "2026-11-02T00:00:01.000Z", ...draft }));
      await store.append(sessionId, drafts as never, { keepTimestamps: true });
    }
    home.write(claude!.lines);
    const looked = await home.look();
    expect(looked?.counts.forked).toBe(1);
    expect(looked).toEqual(await home.importWhole());
    await home.sameLogs();
  });
});
