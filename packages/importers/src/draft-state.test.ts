import { describe, expect, it } from "vitest";
import { DraftBuilder } from "./draft-builder";
import { DRAFT_STATE_VERSION, parseDraftState } from "./draft-state";
import type { SourceKey } from "./types";

const key: SourceKey = { tool: "claude-code", sessionId: "s1" };

/** One source entry's worth of builder calls: a session with every kind of event in it. */
const steps: ((builder: DraftBuilder) => void)[] = [
  (b) => b.extension("instructions", "be brief"),
  (b) => b.at("2026-11-01T00:00:01.000Z").userPrompt("first", { uuid: "u1" }),
  (b) => b.setModel("anthropic:claude-x"),
  (b) => b.at("2026-11-01T00:00:02.000Z").assistantText("looking"),
  (b) => b.call("c1", "Read", '{"path":"a"}'),
  (b) => b.call("c1", "Read", '{"path":"b"}'),
  (b) => b.at("2026-11-01T00:00:03.000Z").output("c1", "a's text", false),
  (b) => b.output("nope", "an output without its call", true),
  (b) => b.at("2026-11-01T00:00:04.000Z").userPrompt("second", { uuid: "u2" }),
  (b) => b.call("", "Bash", '{"command":"ls"}'),
  (b) => b.markTurn("failed", "it broke"),
  (b) => b.at("2026-11-01T00:00:05.000Z").compaction("all so far"),
  (b) => b.userPrompt("third", { uuid: "u3" }),
  (b) => b.call("c1", "Read", '{"path":"c"}'),
  (b) => b.at("2026-11-01T00:00:06.000Z").compaction("keep the call", { keepFromSeq: 20 }),
  (b) => b.assistantText("done"),
];

function build(from: DraftBuilder, range: readonly ((builder: DraftBuilder) => void)[]) {
  for (const step of range) step(from);
  return from.finish();
}

describe("DraftBuilder state", () => {
  it("resumed after any entry, through JSON, builds the events a whole conversion builds after it", () => {
    const whole = JSON.stringify(build(new DraftBuilder(key, "2026-11-01T00:00:00.000Z"), steps));
    for (let cut = 0; cut <= steps.length; cut += 1) {
      const first = new DraftBuilder(key, "2026-11-01T00:00:00.000Z");
      const before = build(first, steps.slice(0, cut));
      const kept = parseDraftState(JSON.parse(JSON.stringify(first.state())));
      expect(kept, `state after ${cut} steps`).toBeDefined();
      const resumed = DraftBuilder.resume(kept!);
      const after = build(resumed, steps.slice(cut));
      expect(resumed.nextSeq).toBe(before.length + after.length + 1);
      expect(JSON.stringify([...before, ...after]), `cut after ${cut} steps`).toBe(whole);
    }
  });

  it("refuses a state of another version or shape", () => {
    const state = new DraftBuilder(key, "2026-11-01T00:00:00.000Z").state();
    expect(parseDraftState(state)).toEqual(state);
    expect(parseDraftState({ ...state, version: DRAFT_STATE_VERSION + 1 })).toBeUndefined();
    expect(parseDraftState({ ...state, nextSeq: 0 })).toBeUndefined();
    expect(parseDraftState("state")).toBeUndefined();
  });
});
