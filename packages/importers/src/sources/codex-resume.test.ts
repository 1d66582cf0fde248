/**
 * A grown rollout converted from the state kept after its first lines: the events are the ones a
 * conversion of the whole file has after them, at every line of the real sample and of a rollout
 * of the old shape, the state kept as JSON in between.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { splitLines } from "../lines";
import { convertCodex, convertCodexKeeping, parseCodexState, resumeCodex } from "./codex";
import type { SourceFile } from "./common";

const sample = fileURLToPath(
  new URL(
    "../../__fixtures__/samples/codex/2025/12/28/rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
    import.meta.url,
  ),
);

/** A rollout of before September 2025: a bare meta line, then bare items. */
const oldShape = Buffer.from(
  `${[
    { id: "0198aaaa-0000-7000-8000-000000000001", timestamp: "2025-08-01T10:00:00.000Z" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "list files" }] },
    { type: "function_call", name: "shell", arguments: '{"command":["ls"]}', call_id: "c1" },
    { type: "function_call_output", call_id: "c1", output: '{"output":"a b"}' },
    { type: "function_call", name: "shell", arguments: '{"command":["pwd"]}', call_id: "c1" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "two" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "thanks" }] },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n")}\n`,
);

/** A rollout whose meta names no folder: the first turn context's does; then a compaction. */
const contextCwd = Buffer.from(
  `${[
    [
      "session_meta",
      { id: "0199bbbb-0000-7000-8000-000000000002", timestamp: "2025-12-01T09:00:00.000Z" },
    ],
    ["turn_context", { cwd: "/work/two", model: "gpt-x" }],
    [
      "response_item",
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
    ],
    ["response_item", { type: "function_call", name: "shell", arguments: "{}", call_id: "k" }],
    ["event_msg", { type: "turn_aborted" }],
    ["turn_context", { cwd: "/elsewhere", model: "gpt-y" }],
    [
      "response_item",
      { type: "message", role: "user", content: [{ type: "input_text", text: "again" }] },
    ],
    ["compacted", { message: "so far" }],
    [
      "response_item",
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] },
    ],
  ]
    .map(([type, payload], index) =>
      JSON.stringify({ timestamp: `2025-12-01T09:00:0${index}.000Z`, type, payload }),
    )
    .join("\n")}\n`,
);

describe.each([
  ["the sample rollout", readFileSync(sample)],
  ["an old-shape rollout", oldShape],
  ["a rollout whose folder is in its turn context", contextCwd],
])("resuming %s", (_name, bytes) => {
  const lines = splitLines(bytes, { path: sample }).lines;
  const fileOf = (from: number, to: number): SourceFile => ({
    path: sample,
    lines: lines.slice(from, to),
  });

  it("after any line, continues with the events the whole file has after it", () => {
    const whole = convertCodex(fileOf(0, lines.length)).sessions[0]!;
    expect(whole.events.length).toBeGreaterThan(3);
    for (let cut = 1; cut < lines.length; cut += 1) {
      const before = convertCodexKeeping(fileOf(0, cut));
      const state = parseCodexState(JSON.parse(JSON.stringify(before.state())));
      expect(state, `state after ${cut} lines`).toBeDefined();
      const after = resumeCodex(state!, fileOf(cut, lines.length));
      const [head] = before.conversion.sessions;
      const [tail] = after.conversion.sessions;
      const events = [...(head?.events ?? []), ...(tail?.events ?? [])];
      expect(JSON.stringify(events), `cut after ${cut} lines`).toBe(JSON.stringify(whole.events));
      const ended = tail ?? head!;
      expect([ended.key, ended.cwd, ended.createdAt, ended.forkOf]).toEqual([
        whole.key,
        whole.cwd,
        whole.createdAt,
        whole.forkOf,
      ]);
      expect(before.conversion.entries + after.conversion.entries).toBe(lines.length);
      expect(after.state()).toEqual(convertCodexKeeping(fileOf(0, lines.length)).state());
    }
  });

  it("keeps no state before the meta line says which session this is", () => {
    expect(convertCodexKeeping(fileOf(0, 0)).state()).toBeUndefined();
    expect(
      parseCodexState({ draft: {}, oldShape: false, cwd: "/", createdAt: "" }),
    ).toBeUndefined();
  });
});
