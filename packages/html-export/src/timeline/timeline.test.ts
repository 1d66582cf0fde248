import { analyzeEventLog } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import { eventLabel, modelInput, truncate } from "./timeline";
import { buildTimeline } from "./timeline-builder";

function english() {
  const log = eventLogBuilder();
  log.system("seed prompt");
  log.turn().user("read it");
  const runId = log.events.at(-1)?.runId ?? "";
  log.push({
    type: "model/request",
    runId,
    requestId: "r1",
    provider: "openai",
    model: "m",
    inputDigest: "d",
    toolsDigest: "t",
    inputItems: [1, 3],
  });
  log.push({
    type: "model/response",
    runId,
    requestId: "r1",
    finishReason: "tool_calls",
    usage: { inputTokens: 50, outputTokens: 5 },
  });
  log.call("read_file", { path: "a" }, "c1");
  log.push({ type: "approval/request", runId, callId: "c1", options: ["allow_once", "reject"] });
  log.push({ type: "approval/decision", runId, callId: "c1", decision: "allow_once" });
  log.output("file text");
  log.assistant("done");
  log.end();
  return log;
}

/** A turn "hi" whose model call "r" has streamed `chunks` so far (one chunk event each). */
function streamingTurn(...chunks: string[]) {
  const log = eventLogBuilder();
  log.turn().user("hi");
  const runId = log.events.at(-1)?.runId ?? "";
  log.push({
    type: "model/request",
    runId,
    requestId: "r",
    provider: "p",
    model: "m",
    inputDigest: "d",
    toolsDigest: "t",
    inputItems: [2],
  });
  chunks.forEach((text, index) => {
    log.push({ type: "assistant/chunk", runId, requestId: "r", index, delta: { text } });
  });
  return { log, runId };
}

describe("buildTimeline", () => {
  it("groups a seed and turns, pairs each call with its output and approval, and sums usage", () => {
    const log = english();
    const rows = buildTimeline(log.events, new Map());
    expect(rows.map((row) => row.kind)).toEqual([
      "turn",
      "message",
      "turn",
      "message",
      "model",
      "tool",
      "message",
    ]);
    const turn = rows[2];
    expect(turn).toMatchObject({
      kind: "turn",
      turn: 1,
      usage: { inputTokens: 50, outputTokens: 5 },
      modelCalls: 1,
    });
    expect(turn?.kind === "turn" && turn.end?.status).toBe("completed");
    const tool = rows[5];
    expect(tool).toMatchObject({
      kind: "tool",
      output: { output: "file text" },
      approval: { requested: true, decision: "allow_once" },
    });
    expect(rows[4]).toMatchObject({ kind: "model", finishReason: "tool_calls" });
  });

  it("marks what a compaction replaced and lists the replaced seqs under it", () => {
    const log = english();
    log.turn().user("compact");
    log.compact("summary", [3, 9]);
    const replacedBy = analyzeEventLog(log.events).replacedBy;
    const rows = buildTimeline(log.events, replacedBy);
    const user = rows.find((row) => row.seq === 3);
    expect(user).toMatchObject({ kind: "message", replacedBy: 14 });
    expect(rows.at(-1)).toMatchObject({ kind: "compaction", replaces: [3, 9] });
  });

  it("shows text streamed before an interruption as a partial assistant message", () => {
    const { log, runId } = streamingTurn("Half an", " answer");
    log.push({ type: "turn/end", runId, status: "interrupted", synthetic: true });
    log.push({ type: "error", runId, code: "late", message: "after the call" });
    const rows = buildTimeline(log.events, new Map());
    // The unfinished answer sits right after the model call that streamed it.
    expect(rows.map((row) => row.kind)).toEqual(["turn", "message", "model", "message", "note"]);
    expect(rows[3]).toMatchObject({ content: "Half an answer", partial: true, seq: 3 });
    expect(rows[0]).toMatchObject({
      kind: "turn",
      end: { status: "interrupted", synthetic: true },
    });
  });

  it("shows an older log's lowercase error code in today's casing", () => {
    const { log, runId } = streamingTurn("Hel");
    log.push({ type: "error", runId, code: "rate_limit", message: "Rate limit reached" });
    const note = buildTimeline(log.events, new Map()).at(-1);
    expect(note).toMatchObject({ kind: "note", text: "RATE_LIMIT: Rate limit reached" });
    expect(eventLabel(log.events.at(-1)!)).toBe("error RATE_LIMIT: Rate limit reached");
  });

  it("does not duplicate streamed text that was completed by its message", () => {
    const { log, runId } = streamingTurn("Hello");
    log.push({ type: "model/response", runId, requestId: "r", finishReason: "stop" });
    log.assistant("Hello");
    log.end();
    const messages = buildTimeline(log.events, new Map()).filter((row) => row.kind === "message");
    expect(messages.map((row) => row.kind === "message" && row.content)).toEqual(["hi", "Hello"]);
  });
});

describe("buildTimeline without chunk events", () => {
  it("uses the streamed text the server sends to show an unfinished answer", () => {
    const { log, runId } = streamingTurn();
    log.push({ type: "turn/end", runId, status: "interrupted", synthetic: true });
    const rows = buildTimeline(log.events, new Map(), new Map([["r", "Half an answer"]]));
    expect(rows).toContainEqual(
      expect.objectContaining({ kind: "message", content: "Half an answer", partial: true }),
    );
  });
});

describe("modelInput", () => {
  it("rebuilds the items a model call saw from their seqs", () => {
    const log = english();
    const request = log.events.find((event) => event.type === "model/request");
    if (request?.type !== "model/request") throw new Error("no request");
    const items = modelInput(log.events, request as Parameters<typeof modelInput>[1]);
    expect(items.map((item) => item.event?.type)).toEqual(["message", "message"]);
    expect(items.map((item) => item.seq)).toEqual([1, 3]);
  });
});

describe("truncate", () => {
  it("cuts long text and says so", () => {
    expect(truncate("abcdef", 3)).toEqual({ text: "abc", cut: true });
    expect(truncate("abc", 3)).toEqual({ text: "abc", cut: false });
  });
});
