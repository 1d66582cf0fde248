import { existsSync, readFileSync, statSync } from "node:fs";
import {
  INTERRUPTED_OUTPUT,
  type SessionEvent,
  SessionNotFoundError,
  uuidv7,
} from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

function bytesOf(sessionId: string): Buffer {
  return readFileSync(store.pathOf(sessionId));
}

function linesOf(events: readonly SessionEvent[]): Buffer {
  return Buffer.from(events.map((event) => `${JSON.stringify(event)}\n`).join(""));
}

/** A session whose last run stopped inside a tool call (no output, no turn/end). */
async function interruptedSession() {
  const { sessionId } = await store.create({
    cwd: temp.root,
    seed: [drafts("seed").system("You are a test.")],
  });
  const run = drafts(uuidv7());
  const events = await store.append(sessionId, [
    run.start(),
    run.user("list the files"),
    run.call("call_1", "shell", { command: "ls" }),
  ]);
  return { sessionId, run, callSeq: events[2]!.seq };
}

describe("resumeSession", () => {
  it("unknown id: SessionNotFoundError and no file or directory is created", async () => {
    const error = await store.resumeSession(uuidv7()).catch((caught: unknown) => caught);
    expect(SessionNotFoundError.isInstance(error)).toBe(true);
    expect(existsSync(temp.home)).toBe(false);
  });

  it("empty history: a session with no events resumes with nothing to send or repair", async () => {
    const { sessionId } = await store.create({ cwd: temp.root });
    const resumed = await store.resumeSession(sessionId);
    expect(resumed.history).toEqual([]);
    expect(resumed.synthesizedEvents).toEqual([]);
    expect(resumed.session.lastSeq).toBe(0);
  });

  it("clean rebuild: a finished session resumes with its surface and no repairs", async () => {
    const { sessionId } = await store.create({
      cwd: temp.root,
      seed: [drafts("seed").system("sys")],
    });
    const run = drafts(uuidv7());
    const [, , call] = await store.append(sessionId, [run.start(), run.user("q"), run.call("c1")]);
    await store.append(sessionId, [
      run.output("c1", call!.seq, "contents"),
      run.assistant("done"),
      run.end(),
    ]);
    const before = bytesOf(sessionId);
    const resumed = await store.resumeSession(sessionId);
    expect(resumed.synthesizedEvents).toEqual([]);
    expect(resumed.history).toEqual([
      { type: "message", role: "system", content: "sys" },
      { type: "message", role: "user", content: "q" },
      { type: "function_call", callId: "c1", name: "read_file", arguments: '{"path":"a.txt"}' },
      { type: "function_call_output", callId: "c1", output: "contents", isError: false },
      { type: "message", role: "assistant", content: "done" },
    ]);
    expect(bytesOf(sessionId)).toEqual(before);
  });

  it("orphan call rebuild: a synthetic error output for the call, then an interrupted turn/end", async () => {
    const { sessionId, callSeq } = await interruptedSession();
    const before = bytesOf(sessionId);
    const resumed = await store.resumeSession(sessionId);
    const runId = resumed.session.openTurn?.runId;
    expect(resumed.synthesizedEvents).toEqual([
      {
        type: "function_call_output",
        runId,
        callId: "call_1",
        output: INTERRUPTED_OUTPUT,
        isError: true,
        synthetic: true,
        sourceEventSeqs: [callSeq],
      },
      { type: "turn/end", runId, status: "interrupted", synthetic: true },
    ]);
    expect(resumed.history.at(-1)).toEqual({
      type: "function_call_output",
      callId: "call_1",
      output: INTERRUPTED_OUTPUT,
      isError: true,
    });
    expect(resumed.history).toHaveLength(resumed.session.history().length + 1);
    // Nothing written.
    expect(bytesOf(sessionId)).toEqual(before);
  });

  it("returns the full history while only the new events are written: the file grows by exactly their lines", async () => {
    const { sessionId } = await store.create({ cwd: temp.root, seed: [drafts("s").system("sys")] });
    for (let turn = 0; turn < 5; turn += 1) {
      const run = drafts(uuidv7());
      await store.append(sessionId, [
        run.start(),
        run.user(`q${turn}`),
        run.assistant(`a${turn}`),
        run.end(),
      ]);
    }
    const before = bytesOf(sessionId);
    const resumed = await store.resumeSession(sessionId);
    expect(resumed.history).toHaveLength(11);
    const run = drafts(uuidv7());
    const writer = await store.openWriter(sessionId);
    const written = await writer.append([
      ...resumed.synthesizedEvents,
      run.start(true),
      run.user("next"),
    ]);
    await writer.close();
    const after = bytesOf(sessionId);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.subarray(before.length)).toEqual(linesOf(written));
    expect(written.map((event) => event.seq)).toEqual([22, 23]);
  });

  it("a session interrupted mid-tool-call: the synthesized output is persisted once, and a second resume adds nothing", async () => {
    const { sessionId } = await interruptedSession();
    const first = await store.resumeSession(sessionId);
    expect(first.synthesizedEvents).toHaveLength(2);
    const persisted = await store.append(sessionId, first.synthesizedEvents);
    expect(persisted.map((event) => event.type)).toEqual(["function_call_output", "turn/end"]);
    const size = statSync(store.pathOf(sessionId)).size;

    const second = await store.resumeSession(sessionId);
    expect(second.synthesizedEvents).toEqual([]);
    expect(second.history).toEqual(first.history);
    expect(second.session.pendingCalls).toEqual([]);
    expect(second.session.openTurn).toBeNull();
    expect(statSync(store.pathOf(sessionId)).size).toBe(size);
  });

  it("a compaction replayed on resume gives the same surface the live run had", async () => {
    const { sessionId } = await store.create({ cwd: temp.root, seed: [drafts("s").system("sys")] });
    const writer = await store.openWriter(sessionId);
    const run = drafts(uuidv7());
    const events = await writer.append([
      run.start(),
      run.user("first question"),
      run.assistant("first answer"),
      run.user("second question"),
      run.call("c1"),
    ]);
    const callSeq = events.at(-1)!.seq;
    await writer.append([run.output("c1", callSeq, "big output")]);
    // Replace the first exchange, then compact the compaction with the tool call (a chain).
    const [first] = await writer.append([run.compact("summary one", [3, 4])]);
    await writer.append([run.compact("summary two", [first!.seq, callSeq, callSeq + 1])]);
    await writer.append([run.assistant("final"), run.end()]);
    const liveSurface = writer.session.surface.map((entry) => ({ ...entry }));
    const liveHistory = writer.session.history();
    await writer.close();

    const resumed = await store.resumeSession(sessionId);
    expect(resumed.session.surface).toEqual(liveSurface);
    expect(resumed.history).toEqual(liveHistory);
    expect(resumed.history.map((item) => item.type)).toEqual([
      "message",
      "compaction",
      "message",
      "message",
    ]);
    expect(resumed.session.replacedBy.get(3)).toBe(first!.seq);
  });

  it("repairs a torn tail automatically, then resumes", async () => {
    const { sessionId } = await interruptedSession();
    const whole = bytesOf(sessionId);
    const { appendFileSync } = await import("node:fs");
    appendFileSync(
      store.pathOf(sessionId),
      '{"seq":5,"ts":"2026-01-01T00:00:00.000Z","type":"mess',
    );
    const resumed = await store.resumeSession(sessionId);
    expect(bytesOf(sessionId)).toEqual(whole);
    expect(resumed.synthesizedEvents).toHaveLength(2);
  });
});
