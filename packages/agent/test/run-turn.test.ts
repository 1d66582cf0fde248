import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PROCESS_START_EVENT, type SessionEvent } from "@tapedeck/session";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type ApprovalRequest,
  defaultTools,
  initializeRun,
  type LiveNotice,
  runTurn,
} from "../src/index";
import { type Sandbox, type ScriptStep, sandbox, scriptedProvider } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});

const model = "openai:gpt-4.1-mini";

async function events(sessionId: string): Promise<SessionEvent[]> {
  const session = await box.store.readSession(sessionId);
  return [...session.events];
}

async function turn(
  steps: ScriptStep[],
  options: {
    input?: string;
    approval?: "ask" | "auto" | "deny";
    approve?: (request: ApprovalRequest) => Promise<"allow_once" | "allow_always" | "reject">;
    sessionId?: string;
    signal?: AbortSignal;
    maxModelCalls?: number;
    compactAt?: number;
    keepLastItems?: number;
    compactNow?: boolean;
    compactOnly?: boolean;
    onCommit?: (events: readonly SessionEvent[]) => void;
  } = {},
) {
  const provider = scriptedProvider(steps);
  const policy = { approval: options.approval ?? "auto" } as const;
  const run = await initializeRun({
    store: box.store,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    input: options.input ?? "do it",
    cwd: box.cwd,
    policy,
    model,
  });
  const seen: LiveNotice[] = [];
  const result = await runTurn({
    run,
    provider,
    model,
    tools: defaultTools(),
    policy,
    cwd: box.cwd,
    onNotice: (notice) => seen.push(notice),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.maxModelCalls === undefined ? {} : { maxModelCalls: options.maxModelCalls }),
    ...(options.compactAt === undefined ? {} : { compactAt: options.compactAt }),
    ...(options.keepLastItems === undefined ? {} : { keepLastItems: options.keepLastItems }),
    ...(options.compactNow === undefined ? {} : { compactNow: options.compactNow }),
    ...(options.compactOnly === undefined ? {} : { compactOnly: options.compactOnly }),
    ...(options.onCommit === undefined ? {} : { onCommit: options.onCommit }),
  });
  return { result, seen, provider, sessionId: run.sessionId, runId: run.runId };
}

describe("runTurn", () => {
  it("records request, one chunk per delta, response, the message and turn/end", async () => {
    const { result, sessionId, provider } = await turn([{ text: "Hello there", chunks: 3 }]);
    expect(result).toMatchObject({ status: "completed", stopReason: "end_turn" });
    const log = await events(sessionId);
    const types = log.map((event) => event.type);
    expect(types).toEqual([
      "message",
      "turn/start",
      "message",
      "model/request",
      "assistant/chunk",
      "assistant/chunk",
      "assistant/chunk",
      "model/response",
      "message",
      "turn/end",
    ]);
    const request = log[3];
    expect(request).toMatchObject({
      provider: "scripted",
      model: "gpt-4.1-mini",
      inputItems: [1, 3],
    });
    expect(request?.type === "model/request" && request.inputDigest).toMatch(/^sha256:/);
    expect(
      log
        .filter((event) => event.type === "assistant/chunk")
        .map((event) => event.type === "assistant/chunk" && event.index),
    ).toEqual([0, 1, 2]);
    expect(log[8]).toMatchObject({ role: "assistant", content: "Hello there" });
    expect(log[9]).toMatchObject({
      status: "completed",
      usage: { inputTokens: 50, outputTokens: 5 },
    });
    expect(provider.requests[0]?.input.map((item) => item.type)).toEqual(["message", "message"]);
  });

  it("runs tool calls in a loop and cites each call from its output", async () => {
    await writeFile(path.join(box.cwd, "a.txt"), "alpha\n");
    const { result, seen, sessionId, provider } = await turn([
      {
        calls: [
          { callId: "c1", name: "read_file", arguments: { path: "a.txt" } },
          { callId: "c2", name: "list_dir", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    expect(result.status).toBe("completed");
    const log = await events(sessionId);
    const outputs = log.filter((event) => event.type === "function_call_output");
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      if (output.type !== "function_call_output") continue;
      const call = log.find(
        (event) => event.type === "function_call" && event.callId === output.callId,
      );
      expect(output.sourceEventSeqs).toEqual([call?.seq]);
    }
    expect(
      outputs.find((event) => event.type === "function_call_output" && event.callId === "c1"),
    ).toMatchObject({ output: "alpha\n", isError: false });
    // Second request sees the calls and their outputs.
    expect(provider.requests[1]?.input.map((item) => item.type)).toEqual([
      "message",
      "message",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    const second = log.filter((event) => event.type === "model/request")[1];
    expect(second?.type === "model/request" && second.inputItems).toHaveLength(6);
    // The one live notice: each tool call starting (no log event records it).
    expect(seen.map((notice) => notice.callId)).toEqual(["c1", "c2"]);
  });

  it("bad tool arguments and unknown tools become error outputs, not failures", async () => {
    const { result, sessionId } = await turn([
      {
        calls: [
          { callId: "c1", name: "read_file", arguments: { nope: 1 } },
          { callId: "c2", name: "fly", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    expect(result.status).toBe("completed");
    const outputs = (await events(sessionId)).filter(
      (event) => event.type === "function_call_output",
    );
    expect(outputs).toMatchObject([
      {
        isError: true,
        output: expect.stringMatching(/^Error: Invalid arguments for read_file: path/),
      },
      {
        isError: true,
        output: expect.stringMatching(/^Error: Unknown tool "fly". Available: read_file/),
      },
    ]);
  });

  it("stops with max_turn_requests after maxModelCalls", async () => {
    const call = (id: string): ScriptStep => ({
      calls: [{ callId: id, name: "list_dir", arguments: {} }],
    });
    const { result, sessionId } = await turn([call("a"), call("b"), call("c")], {
      maxModelCalls: 2,
    });
    expect(result).toMatchObject({ status: "completed", stopReason: "max_turn_requests" });
    const log = await events(sessionId);
    expect(log.filter((event) => event.type === "model/request")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
  });

  it("a model failure ends the turn failed with the error recorded", async () => {
    const { result, sessionId } = await turn([{ error: Object.assign(new Error("boom"), {}) }]);
    expect(result.status).toBe("failed");
    const log = await events(sessionId);
    expect(log.map((event) => event.type).slice(-4)).toEqual([
      "model/request",
      "model/response",
      "error",
      "turn/end",
    ]);
    expect(log.at(-1)).toMatchObject({ status: "failed", error: { message: "boom" } });
  });

  describe("approvals", () => {
    const writeStep: ScriptStep = {
      calls: [{ callId: "w1", name: "write_file", arguments: { path: "out.txt", content: "x" } }],
    };

    it("ask + allow: persists request and decision, then runs the tool", async () => {
      const asked: ApprovalRequest[] = [];
      const { sessionId, seen } = await turn([writeStep, { text: "written" }], {
        approval: "ask",
        approve: async (request) => {
          asked.push(request);
          return "allow_once";
        },
      });
      expect(asked[0]).toMatchObject({
        name: "write_file",
        kind: "edit",
        locations: [path.join(box.cwd, "out.txt")],
      });
      expect(await readFile(path.join(box.cwd, "out.txt"), "utf8")).toBe("x");
      const log = await events(sessionId);
      expect(log.filter((event) => event.type.startsWith("approval/"))).toMatchObject([
        {
          type: "approval/request",
          callId: "w1",
          options: ["allow_once", "allow_always", "reject"],
        },
        { type: "approval/decision", callId: "w1", decision: "allow_once" },
      ]);
      expect(seen).toEqual([expect.objectContaining({ type: "tool_started", callId: "w1" })]);
    });

    it("ask + reject: the tool does not run and the model is told", async () => {
      const { sessionId } = await turn([writeStep, { text: "ok" }], {
        approval: "ask",
        approve: async () => "reject",
      });
      await expect(readFile(path.join(box.cwd, "out.txt"), "utf8")).rejects.toThrow();
      const output = (await events(sessionId)).find(
        (event) => event.type === "function_call_output",
      );
      expect(output).toMatchObject({
        isError: true,
        output: "Error: The user rejected this write_file call.",
      });
    });

    it("deny refuses writes without asking; reads still run", async () => {
      await writeFile(path.join(box.cwd, "r.txt"), "read me");
      const { sessionId } = await turn(
        [
          {
            calls: [
              ...(writeStep as { calls: never[] }).calls,
              { callId: "r1", name: "read_file", arguments: { path: "r.txt" } },
            ],
          },
          { text: "ok" },
        ],
        {
          approval: "deny",
          approve: async () => {
            throw new Error("must not ask");
          },
        },
      );
      const log = await events(sessionId);
      expect(log.some((event) => event.type === "approval/request")).toBe(false);
      const outputs = log.filter((event) => event.type === "function_call_output");
      expect(
        outputs.map((event) => event.type === "function_call_output" && event.isError),
      ).toEqual([true, false]);
    });

    it("auto runs writes without approval events", async () => {
      const { sessionId } = await turn([writeStep, { text: "ok" }], { approval: "auto" });
      expect(await readFile(path.join(box.cwd, "out.txt"), "utf8")).toBe("x");
      expect((await events(sessionId)).some((event) => event.type.startsWith("approval/"))).toBe(
        false,
      );
    });
  });

  describe("cancellation", () => {
    it("kills a running command, gives the call an error output and ends the turn cancelled", async () => {
      const controller = new AbortController();
      const started = Date.now();
      const promise = turn(
        [{ calls: [{ callId: "s1", name: "run_command", arguments: { command: "sleep 20" } }] }],
        {
          signal: controller.signal,
          // Once the command runs: its process record is committed.
          onCommit: (events) => {
            if (events.some((event) => event.type === PROCESS_START_EVENT)) controller.abort();
          },
        },
      );
      const { result, sessionId, seen } = await promise;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result).toMatchObject({ status: "cancelled", stopReason: "cancelled" });
      const log = await events(sessionId);
      expect(log.find((event) => event.type === "function_call_output")).toMatchObject({
        callId: "s1",
        isError: true,
      });
      expect(log.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
      expect(seen).toEqual([expect.objectContaining({ type: "tool_started", callId: "s1" })]);
    });

    it("stops a model stream, keeping the text already shown", async () => {
      const controller = new AbortController();
      const promise = turn([{ hang: true, text: "partial" }], {
        signal: controller.signal,
        // Once the text is shown: its chunk is committed.
        onCommit: (events) => {
          if (events.some((event) => event.type === "assistant/chunk")) controller.abort();
        },
      });
      const { result, sessionId } = await promise;
      expect(result.stopReason).toBe("cancelled");
      const log = await events(sessionId);
      expect(log.map((event) => event.type).slice(-4)).toEqual([
        "assistant/chunk",
        "model/response",
        "message",
        "turn/end",
      ]);
      expect(log.at(-3)).toMatchObject({ finishReason: "cancelled" });
      expect(log.at(-2)).toMatchObject({ role: "assistant", content: "partial" });
    });

    it("a pending approval answers cancelled", async () => {
      const controller = new AbortController();
      const promise = turn(
        [{ calls: [{ callId: "w9", name: "write_file", arguments: { path: "x", content: "y" } }] }],
        {
          approval: "ask",
          signal: controller.signal,
          // Cancelled while the person is being asked.
          approve: () => {
            setImmediate(() => controller.abort());
            return new Promise(() => {});
          },
        },
      );
      const { result, sessionId } = await promise;
      expect(result.stopReason).toBe("cancelled");
      const log = await events(sessionId);
      expect(log.find((event) => event.type === "approval/decision")).toMatchObject({
        decision: "cancelled",
      });
      expect(log.find((event) => event.type === "function_call_output")).toMatchObject({
        callId: "w9",
        isError: true,
      });
    });
  });

  describe("compaction", () => {
    it("summarizes older items into a compaction event; the next request sees the summary", async () => {
      const first = await turn([
        { calls: [{ callId: "l1", name: "list_dir", arguments: {} }] },
        { text: "first answer" },
      ]);
      const second = await turn([{ text: "SUMMARY" }, { text: "second answer" }], {
        sessionId: first.sessionId,
        compactAt: 1,
        keepLastItems: 1,
      });
      expect(second.result.status).toBe("completed");
      const log = await events(first.sessionId);
      const compaction = log.find((event) => event.type === "compaction");
      expect(compaction).toMatchObject({ summary: "SUMMARY", surfaceOp: "replace" });
      // user, call, output, answer replaced; system seed and the new user message kept.
      expect(compaction?.type === "compaction" && compaction.replaces).toEqual([3, 7, 8, 13]);
      expect(second.provider.requests[0]?.tools).toEqual([]);
      expect(second.provider.requests[1]?.input.map((item) => item.type)).toEqual([
        "message",
        "compaction",
        "message",
      ]);
      const session = await box.store.readSession(first.sessionId);
      expect(session.history().map((item) => item.type)).toEqual([
        "message",
        "compaction",
        "message",
        "message",
      ]);
    });

    it("compacts on demand without asking for an answer", async () => {
      const first = await turn([{ text: "one" }]);
      const second = await turn([{ text: "SUM" }], {
        sessionId: first.sessionId,
        input: "/compact",
        compactNow: true,
        compactOnly: true,
        keepLastItems: 1,
      });
      expect(second.provider.remaining()).toBe(0);
      const log = await events(first.sessionId);
      expect(log.filter((event) => event.type === "compaction")).toHaveLength(1);
    });
  });
});

describe("approval broker", () => {
  it("keeps pending approvals by runId until resolved; late answers are ignored", async () => {
    const { createApprovalBroker } = await import("../src/index");
    const broker = createApprovalBroker();
    const provider = scriptedProvider([
      { calls: [{ callId: "w1", name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
      { text: "ok" },
    ]);
    const policy = { approval: "ask" } as const;
    const run = await initializeRun({ store: box.store, input: "x", cwd: box.cwd, policy, model });
    const done = runTurn({
      run,
      provider,
      model,
      tools: defaultTools(),
      policy,
      cwd: box.cwd,
      approve: broker.approver,
    });
    while (broker.pending(run.runId).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(broker.pending()).toHaveLength(1);
    expect(broker.pending("other-run")).toEqual([]);
    expect(broker.pending(run.runId)[0]?.request).toMatchObject({
      callId: "w1",
      name: "write_file",
    });
    expect(broker.resolve(run.runId, "w1", "allow_once")).toBe(true);
    expect(broker.resolve(run.runId, "w1", "reject")).toBe(false);
    expect((await done).status).toBe("completed");
    expect(await readFile(path.join(box.cwd, "b.txt"), "utf8")).toBe("b");
    expect(broker.pending()).toEqual([]);
  });
});
