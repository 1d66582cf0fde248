/**
 * An opencode session read while opencode writes it is an append, not a fork, once it grows:
 * opencode rewrites a part in place as it streams (text and reasoning grow, a tool call goes
 * `pending`, `running`, `completed`), so the converter leaves out the parts of the last message
 * opencode may still rewrite. Every state opencode passes through while writing the sample is
 * tried.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "../import-run";
import { convertOpencode } from "./opencode";
import { opencodeSample } from "./test-opencode-db";

type Part = Record<string, unknown> & { type: string };
type Message = { info: Record<string, unknown> & { role: string }; parts: Part[] };

/** The forms a part takes on disk while opencode writes it, the last one the finished part. */
function partStates(part: Part): Part[] {
  const time = part.time as { start?: number; end?: number } | undefined;
  if ((part.type === "text" || part.type === "reasoning") && time?.end !== undefined) {
    const text = String(part.text);
    const started = { ...part, time: { start: time.start } };
    return [
      { ...started, text: "" },
      { ...started, text: text.slice(0, Math.ceil(text.length / 2)) },
      { ...started, text: `${text} ` },
      part,
    ];
  }
  if (part.type === "tool") {
    const state = part.state as { input: unknown; time?: { start?: number } };
    return [
      { ...part, state: { status: "pending", input: {}, raw: "" } },
      { ...part, state: { status: "running", input: state.input, time: state.time } },
      part,
    ];
  }
  return [part];
}

/** Every document opencode's storage holds while the sample session is written, in order. */
function streamingStates(): unknown[] {
  const messages = opencodeSample.messages as unknown as Message[];
  const states: unknown[] = [];
  const done: Message[] = [];
  const snapshot = (current?: Message) =>
    states.push({
      info: opencodeSample.info,
      messages: structuredClone(current === undefined ? done : [...done, current]),
    });
  for (const message of messages) {
    if (message.info.role !== "assistant") {
      snapshot({ info: message.info, parts: [] });
      done.push(message);
      snapshot();
      continue;
    }
    const { completed: _completed, ...time } = message.info.time as Record<string, unknown>;
    const current: Message = { info: { ...message.info, time }, parts: [] };
    snapshot(current);
    for (const part of message.parts) {
      for (const state of partStates(part)) {
        current.parts = [...current.parts.filter((known) => known.id !== part.id), state];
        snapshot(current);
      }
    }
    done.push(message);
    snapshot();
  }
  return states;
}

async function logOf(store: SessionStore): Promise<Buffer> {
  const [listing] = await store.list();
  const reader = store.openLogReader(listing!.sessionId)!;
  try {
    return reader.readAt(0, listing!.size)!;
  } finally {
    reader.close();
  }
}

describe("an opencode session read while opencode writes it", () => {
  const states = streamingStates();

  it("converts every state to a prefix of what the finished session converts to", () => {
    expect(states.length).toBeGreaterThan(20);
    const whole = convertOpencode(states.at(-1), "/s.json").sessions[0]!;
    for (const [index, state] of states.entries()) {
      const session = convertOpencode(state, "/s.json").sessions[0];
      if (session === undefined) continue;
      expect(whole.events.slice(0, session.events.length), `state ${index}`).toEqual(
        session.events,
      );
    }
  });

  it("imports every state in turn as one session, appended to and never forked", async () => {
    const root = testTempDir("tapedeck-opencode-streaming-");
    const file = join(root, "ses.json");
    const store = createSessionStore({ home: join(root, "home") });
    const actions = new Set<string>();
    for (const state of states) {
      writeFileSync(file, JSON.stringify(state));
      const summary = await importSessions({ store, source: "opencode", paths: [file] });
      for (const report of summary.files) for (const s of report.sessions) actions.add(s.action);
    }
    expect([...actions].sort()).toEqual(["appended", "created", "unchanged"]);
    const alone = createSessionStore({ home: join(root, "alone") });
    await importSessions({ store: alone, source: "opencode", paths: [file] });
    expect((await logOf(store)).equals(await logOf(alone))).toBe(true);
  });
});
