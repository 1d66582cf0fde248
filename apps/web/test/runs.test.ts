/**
 * A run belongs to the server, not to the page: dropping the SSE client detaches and never
 * cancels; the session's run and its pending approvals can be read back and re-attached to; a run
 * waiting for an approval with nobody attached is cancelled after the configured idle time.
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { defaultTools } from "@tapedeck/agent";
import { type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import { type RunEvent, runEventsOfLog } from "@tapedeck/host";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createApp,
  createMemoryIndex,
  type RunningServer,
  startServer,
  type WebApp,
} from "../src/server/index";
import { type SeededHome, seedHome } from "./seed";
import { readSse, type SseMessage } from "./sse";

let seeded: SeededHome;
let store: SessionStore;
let web: WebApp;
let server: RunningServer;

/** A real server whose model asks to run a hidden-character command, then answers. */
async function serve(
  runIdleMs?: number,
  calls: readonly ScriptStep[] = [
    {
      calls: [
        {
          callId: "call_hidden",
          name: "run_command",
          arguments: { command: "echo safe \u202E; 00 peels #\u202C" },
        },
      ],
    },
    { text: "Ran it." },
  ],
): Promise<void> {
  const provider = scriptedProvider([...calls]);
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: {
      model: "openai:gpt-4.1-mini",
      provider: () => provider,
      cwd: seeded.work,
      ...(runIdleMs === undefined ? {} : { runIdleMs }),
    },
  });
  server = await startServer(web.app, { port: 0 });
}

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/api/agent/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });

/** Reads SSE messages until `stop` says so (then drops the connection) or the stream ends. */
async function readUntil(
  response: Response,
  stop: (message: SseMessage) => boolean = () => false,
  abort?: AbortController,
): Promise<SseMessage[]> {
  const seen: SseMessage[] = [];
  if (response.body === null) throw new Error("no body");
  try {
    for await (const message of readSse(response.body)) {
      seen.push(message);
      if (stop(message)) {
        abort?.abort();
        break;
      }
    }
  } catch (error) {
    if (!abort?.signal.aborted) throw error;
  }
  return seen;
}

/** Starts a run in `ask` mode and drops the client once the approval is asked. */
async function startAndDrop(): Promise<{ runId: string; sessionId: string; seen: SseMessage[] }> {
  const abort = new AbortController();
  const seen = await readUntil(
    await post({ input: "run the command", policy: "ask" }, abort.signal),
    (message) => message.event === "approval_request",
    abort,
  );
  const started = JSON.parse(seen[0]?.data ?? "{}");
  return { runId: started.runId, sessionId: started.sessionId, seen };
}

async function sessionRun(sessionId: string) {
  return (await (await fetch(`${server.url}/api/sessions/${sessionId}/run`)).json()).run;
}

beforeEach(() => {
  seeded = seedHome();
  store = createSessionStore({ home: seeded.home });
});

afterEach(async () => {
  await web?.close();
  await server?.close();
  rmSync(seeded.home, { recursive: true, force: true });
  rmSync(seeded.work, { recursive: true, force: true });
});

describe("runs owned by the server", () => {
  it("survives a dropped client; re-attaching brings back the approval, approving completes it", async () => {
    await serve();
    const { runId, sessionId, seen } = await startAndDrop();
    expect(seen.map((message) => message.event)).toContain("run_started");
    // Still waiting once the server has seen the page go, with the approval exactly as the
    // dropped page was shown it.
    await expect.poll(async () => (await sessionRun(sessionId))?.attached).toBe(0);
    const active = await sessionRun(sessionId);
    const asked = JSON.parse(seen.at(-1)?.data ?? "{}");
    expect(active).toMatchObject({ runId, sessionId, status: "waiting_approval", attached: 0 });
    expect(active.pendingApprovals).toEqual([
      expect.objectContaining({
        callId: asked.callId,
        name: "run_command",
        title: asked.title,
        hiddenCharacters: true,
      }),
    ]);
    expect(asked.title).toContain("\\u{202E}");

    // Re-attach from the start: the same events, with their indexes as SSE ids.
    const again = await fetch(`${server.url}/api/agent/runs/${runId}/events`);
    expect(again.headers.get("content-type")).toContain("text/event-stream");
    const rest = readUntil(again);
    const approve = async () => {
      for (;;) {
        const answer = await fetch(
          `${server.url}/api/agent/approvals/${runId}/${encodeURIComponent(asked.callId)}`,
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ decision: "allow_once" }),
          },
        );
        if (answer.status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await approve();
    const replayed = await rest;
    expect(replayed.slice(0, seen.length).map((message) => message.data)).toEqual(
      seen.map((message) => message.data),
    );
    const events = replayed.map((message) => message.event);
    expect(events.indexOf("approval_decision")).toBeGreaterThan(events.indexOf("approval_request"));
    expect(events.at(-1)).toBe("run_finished");
    expect(JSON.parse(replayed.at(-1)?.data ?? "{}").status).toBe("completed");

    const session = await store.readSession(sessionId);
    const types = session.events.map((event) => event.type);
    expect(types).toContain("function_call_output");
    expect(session.events.find((event) => event.type === "approval/decision")).toMatchObject({
      callId: asked.callId,
      decision: "allow_once",
    });
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });
    expect(await sessionRun(sessionId)).toBeNull();
    // The stream is the host's projection of the log, plus the live tool_started notice.
    const streamed = replayed.map((message) => JSON.parse(message.data) as RunEvent);
    expect(streamed.filter((event) => event.type !== "tool_started")).toEqual(
      runEventsOfLog(session.events, { sessionId, tools: defaultTools(), cwd: seeded.work }),
    );
    expect(streamed.map((event) => event.type)).toContain("tool_started");
  });

  it("re-attaches after a given event index (after= or Last-Event-ID) with only what followed", async () => {
    await serve();
    const { runId, seen } = await startAndDrop();
    const last = seen.length - 1;
    const abort = new AbortController();
    const tail = readUntil(
      await fetch(`${server.url}/api/agent/runs/${runId}/events?after=${last - 1}`, {
        signal: abort.signal,
      }),
      (message) => message.event === "approval_request",
      abort,
    );
    expect((await tail).map((message) => message.data)).toEqual([seen[last]?.data]);
    const resumed = fetch(`${server.url}/api/agent/runs/${runId}/events`, {
      headers: { "last-event-id": String(last) },
    });
    await fetch(`${server.url}/api/agent/cancel/${runId}`, { method: "POST" });
    const after = await readUntil(await resumed);
    expect(after.map((message) => message.event)).not.toContain("approval_request");
    expect(after.at(-1)?.event).toBe("run_finished");
  });

  it("cancels a run waiting for an approval after the idle time with nobody attached", async () => {
    await serve(150);
    const { sessionId } = await startAndDrop();
    await expect.poll(() => sessionRun(sessionId), { timeout: 5000 }).toBeNull();
    const session = await store.readSession(sessionId);
    expect(session.events.find((event) => event.type === "approval/decision")).toMatchObject({
      decision: "cancelled",
    });
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
  });

  it("keeps a run waiting past the idle time while a client is attached", async () => {
    await serve(100);
    const abort = new AbortController();
    const response = await post({ input: "run the command", policy: "ask" }, abort.signal);
    let sessionId = "";
    const seen = readUntil(
      response,
      (message) => {
        if (message.event === "run_started") sessionId = JSON.parse(message.data).sessionId;
        return message.event === "run_finished";
      },
      abort,
    );
    await expect.poll(async () => (await sessionRun(sessionId))?.status).toBe("waiting_approval");
    await new Promise((resolve) => setTimeout(resolve, 400));
    const active = await sessionRun(sessionId);
    expect(active).toMatchObject({ status: "waiting_approval", attached: 1 });
    const callId = active.pendingApprovals[0].callId;
    await fetch(`${server.url}/api/agent/approvals/${active.runId}/${callId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "reject" }),
    });
    const events = await seen;
    expect(JSON.parse(events.at(-1)?.data ?? "{}").status).toBe("completed");
  });

  it("closing the server cancels its runs and waits until their logs say so", async () => {
    await serve();
    const { sessionId } = await startAndDrop();
    await web.close();
    // Read at once, synchronously: close() itself must have waited for the log's last line.
    const lines = readFileSync(path.join(seeded.home, "sessions", `${sessionId}.jsonl`), "utf8")
      .trimEnd()
      .split("\n");
    expect(JSON.parse(lines.at(-1) ?? "{}")).toMatchObject({
      type: "turn/end",
      status: "cancelled",
    });
  });

  it("answers 404 for re-attaching to a run that is not in progress, and null for an idle session", async () => {
    await serve();
    const response = await fetch(
      `${server.url}/api/agent/runs/01900000-0000-7000-8000-000000000000/events`,
    );
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe("NO_SUCH_RUN");
    expect(await sessionRun(seeded.english)).toBeNull();
    expect((await fetch(`${server.url}/api/sessions/..%2Fx/run`)).status).toBe(400);
  });
});

describe("slash commands from the composer (read once, by the host)", () => {
  it("/goal on a session records the goal, runs no turn, and the stream still starts and ends", async () => {
    await serve(undefined, []);
    const before = (await store.readSession(seeded.english)).events.length;
    const events = await readUntil(
      await post({ input: "/goal Ship the kettle", sessionId: seeded.english }),
    );
    expect(events.map((message) => message.event)).toEqual(["run_started", "run_finished"]);
    expect(JSON.parse(events[1]?.data ?? "{}").status).toBe("completed");
    const session = await store.readSession(seeded.english);
    expect(session.goal).toBe("Ship the kettle");
    expect(session.events.slice(before).map((event) => event.type)).toEqual(["goal/set"]);
  });

  it("/compact compacts the session with trigger user instead of sending /compact to the model", async () => {
    await serve(undefined, [{ text: "Summary: a kettle README was read." }]);
    const events = await readUntil(await post({ input: "/compact", sessionId: seeded.english }));
    expect(events[0]?.event).toBe("run_started");
    expect(events.at(-1)?.event).toBe("run_finished");
    const session = await store.readSession(seeded.english);
    const messages = session.events.filter((event) => event.type === "message");
    expect(messages.some((event) => "content" in event && event.content === "/compact")).toBe(
      false,
    );
    expect(session.events.filter((event) => event.type === "compaction").at(-1)).toMatchObject({
      trigger: "user",
    });
  });

  it("/compact whose summary call returns no text fails with one sentence and compacts nothing", async () => {
    await serve(undefined, [{ text: "" }]);
    const before = (await store.readSession(seeded.english)).events.length;
    const events = await readUntil(await post({ input: "/compact", sessionId: seeded.english }));
    expect(events.map((event) => event.event)).toEqual(["run_started", "error", "run_finished"]);
    expect(JSON.parse(events[1]?.data ?? "{}")).toMatchObject({
      code: "EMPTY_SUMMARY",
      message: "The model returned an empty summary, so nothing was compacted.",
    });
    expect(JSON.parse(events[2]?.data ?? "{}")).toMatchObject({ status: "failed" });
    const session = await store.readSession(seeded.english);
    expect(session.events.slice(before).map((event) => event.type)).not.toContain("compaction");
  });

  it("/goal without a session is refused (400) and creates nothing", async () => {
    await serve(undefined, []);
    const response = await post({ input: "/goal Ship it" });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("SLASH_COMMAND_NEEDS_SESSION");
  });
});
