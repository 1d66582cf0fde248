import { existsSync } from "node:fs";
import path from "node:path";
import { type AnyAgentTool, createApprovalBroker, defaultTools } from "@tapedeck/agent";
import { type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import type { LlmProvider } from "@tapedeck/llm";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { testWorkspace } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { runEventsOfLog } from "./run-event-projection";
import type { RunEvent } from "./run-events";
import { type RunHandlers, type StartRunOptions, startRun } from "./start-run";

const model = "openai:gpt-4.1-mini";

async function workspace(provider: LlmProvider) {
  const { cwd, home } = await testWorkspace("tapedeck-run-events-");
  const store: SessionStore = createSessionStore({ home });
  const tools: AnyAgentTool[] = defaultTools();
  const host = { store, model, providerFor: () => provider, toolsFor: () => tools };
  /** One run as a surface sees it: the run events it was handed, live, and its result. */
  const run = async (
    options: Partial<StartRunOptions> & { input: string },
    handlers: RunHandlers = {},
  ) => {
    const prepared = await startRun(host, {
      policy: { approval: "auto" },
      callerCwd: cwd,
      ...options,
    });
    const live: RunEvent[] = [];
    const result = await prepared.run({ ...handlers, onEvent: (event) => live.push(event) });
    return { prepared, result, live };
  };
  const start = (options: Partial<StartRunOptions> & { input: string }) =>
    startRun(host, { policy: { approval: "auto" }, callerCwd: cwd, ...options });
  /** The session's whole log, projected. */
  const projected = async (sessionId: string) =>
    runEventsOfLog((await store.readSession(sessionId)).events, { sessionId, tools, cwd });
  return { cwd, home, store, run, startRun: start, projected };
}

/** What was live, without the notices no log event records. */
const logged = (events: readonly RunEvent[]) =>
  events.filter((event) => event.type !== "tool_started");

describe("runEventProjection: a finished session's log gives what the live run delivered", () => {
  it("a plain turn", async () => {
    const space = await workspace(scriptedProvider([{ text: "Hello there", chunks: 3 }]));
    const { result, live } = await space.run({ input: "hi" });
    expect(live.map((event) => event.type)).toEqual([
      "run_started",
      "text_delta",
      "text_delta",
      "text_delta",
      "usage",
      "run_finished",
    ]);
    expect(await space.projected(result.sessionId)).toEqual(live);
    expect(live.at(-1)).toMatchObject({ stopReason: result.stopReason, usage: result.usage });
  });

  it("tool calls with approvals (allowed, rejected), a read without one", async () => {
    const steps: ScriptStep[] = [
      {
        calls: [
          { callId: "c1", name: "write_file", arguments: { path: "a.txt", content: "A" } },
          { callId: "c2", name: "run_command", arguments: { command: "echo hi" } },
          { callId: "c3", name: "read_file", arguments: { path: "a.txt" } },
        ],
        text: "Writing.",
      },
      { text: "Done." },
    ];
    const space = await workspace(scriptedProvider(steps));
    const asked: string[] = [];
    const { result, live } = await space.run(
      { input: "write it", policy: { approval: "ask" } },
      {
        approve: async (request) => {
          asked.push(request.title);
          return request.name === "write_file" ? "allow_once" : "reject";
        },
      },
    );
    expect(logged(live).map((event) => event.type)).toEqual([
      "run_started",
      "text_delta",
      "usage",
      "tool_call",
      "tool_call",
      "tool_call",
      "approval_request",
      "approval_decision",
      "approval_request",
      "approval_decision",
      "tool_result",
      "tool_result",
      "tool_result",
      "text_delta",
      "text_delta",
      "usage",
      "run_finished",
    ]);
    expect(live.flatMap((event) => (event.type === "tool_call" ? [event.title] : []))).toEqual([
      "Write a.txt",
      "Run echo hi",
      "Read a.txt",
    ]);
    // The one live notice, between the events it falls between: the allowed calls starting.
    const started = live.flatMap((event) => (event.type === "tool_started" ? [event.callId] : []));
    expect(started).toEqual(["c1", "c3"]);
    const step = (event: RunEvent) => `${event.type} ${"callId" in event ? event.callId : ""}`;
    expect(live.slice(9, 13).map(step)).toEqual([
      "approval_decision c2",
      "tool_result c2",
      "tool_started c1",
      "tool_started c3",
    ]);
    // The allowed calls run in parallel: their results come in either order.
    expect(live.slice(13, 15).map(step).sort()).toEqual(["tool_result c1", "tool_result c3"]);
    // The card shows what the person was asked: a write with the content it writes.
    expect(asked).toEqual([expect.stringMatching(/^Write a\.txt: .*A/s), "Run echo hi"]);
    expect(live.filter((event) => event.type === "approval_request")).toEqual([
      expect.objectContaining({ name: "write_file", title: asked[0], hiddenCharacters: false }),
      expect.objectContaining({ name: "run_command", title: "Run echo hi" }),
    ]);
    expect(await space.projected(result.sessionId)).toEqual(logged(live));
  });

  it("a compaction (a person's /compact) and the run before it", async () => {
    const space = await workspace(
      scriptedProvider([{ text: "First answer." }, { text: "SUMMARY of it" }]),
    );
    const first = await space.run({ input: "hello" });
    const compacted = await space.run({ input: "/compact", sessionId: first.result.sessionId });
    expect(compacted.live.map((event) => event.type)).toEqual([
      "run_started",
      "compaction",
      "run_finished",
    ]);
    expect(compacted.live[1]).toMatchObject({ summary: "SUMMARY of it" });
    // The summary call's usage is in the run's total, not shown as an answer's.
    expect(compacted.live.at(-1)).toMatchObject({ usage: { inputTokens: 50, outputTokens: 5 } });
    expect(await space.projected(first.result.sessionId)).toEqual([
      ...first.live,
      ...compacted.live,
    ]);
  });

  it("says run_finished once the session is released: the next run may start at once", async () => {
    const space = await workspace(scriptedProvider([{ text: "One." }]));
    const prepared = await space.startRun({ input: "one" });
    const lock = path.join(space.home, "locks", `${prepared.sessionId}.lock`);
    const locked: Partial<Record<RunEvent["type"], boolean>> = {};
    await prepared.run({
      onEvent: (event) => {
        locked[event.type] = existsSync(lock);
      },
    });
    expect(locked).toMatchObject({ run_started: true, run_finished: false });
  });

  it("says approval_request when the approver waits: an answer sent at once is taken", async () => {
    const write = { callId: "w1", name: "write_file", arguments: { path: "b.txt", content: "B" } };
    const space = await workspace(scriptedProvider([{ calls: [write] }, { text: "Written." }]));
    const prepared = await space.startRun({ input: "write b", policy: { approval: "ask" } });
    const broker = createApprovalBroker();
    const answered: boolean[] = [];
    const result = await prepared.run({
      approve: broker.approver,
      onEvent: (event) => {
        if (event.type !== "approval_request") return;
        // The next turn of the event loop: what a person's click could at best be.
        setImmediate(() => answered.push(broker.resolve(event.runId, event.callId, "allow_once")));
      },
    });
    expect(answered).toEqual([true]);
    expect(result.status).toBe("completed");
  });

  it("a failed model call", async () => {
    const space = await workspace(scriptedProvider([{ error: new Error("server went away") }]));
    const { result, live } = await space.run({ input: "hi" });
    expect(result.status).toBe("failed");
    expect(live.slice(-2)).toEqual([
      expect.objectContaining({ type: "error", message: "server went away" }),
      expect.objectContaining({ type: "run_finished", status: "failed" }),
    ]);
    expect(await space.projected(result.sessionId)).toEqual(live);
  });

  it("a cancelled run", async () => {
    const controller = new AbortController();
    const space = await workspace(scriptedProvider([{ hang: true, text: "Par" }]));
    const running = space.run(
      { input: "hi" },
      {
        signal: controller.signal,
        onCommit: (events) => {
          if (events.some((event) => event.type === "assistant/chunk")) controller.abort();
        },
      },
    );
    const { result, live } = await running;
    expect(result.stopReason).toBe("cancelled");
    expect(live.at(-1)).toMatchObject({ type: "run_finished", stopReason: "cancelled" });
    expect(await space.projected(result.sessionId)).toEqual(live);
  });

  it("a refusal stops with the refusal's words, as the run said", async () => {
    const refusing: LlmProvider = {
      id: "openai",
      async *stream() {
        yield { type: "text-delta", text: "Let me " };
        yield {
          type: "response",
          items: [{ type: "message", role: "assistant", content: "Let me " }],
          finishReason: "stop",
          refusal: "I can't help with that.",
          usage: { inputTokens: 7, outputTokens: 3 },
        };
      },
    };
    const space = await workspace(refusing);
    const { result, live } = await space.run({ input: "How do I get into my neighbour's flat?" });
    expect(result).toMatchObject({ stopReason: "refusal" });
    expect(live.filter((event) => event.type === "text_delta")).toEqual([
      expect.objectContaining({ text: "Let me " }),
      expect.objectContaining({ text: "I can't help with that." }),
    ]);
    expect(live.at(-1)).toMatchObject({ stopReason: "refusal" });
    expect(await space.projected(result.sessionId)).toEqual(live);
  });
});

describe("runEventProjection of a log written before codes became UPPER_SNAKE", () => {
  it("reports a recorded lowercase `rate_limit` as RATE_LIMIT", () => {
    const log = eventLogBuilder();
    log.turn().user("hi");
    log.push({
      type: "error",
      runId: log.events[0]!.runId,
      code: "rate_limit",
      message: "slow down",
    });
    const projected = runEventsOfLog(log.events, {
      sessionId: log.header.sessionId,
      tools: [],
      cwd: "/",
    });
    expect(projected.find((event) => event.type === "error")).toMatchObject({ code: "RATE_LIMIT" });
  });
});
