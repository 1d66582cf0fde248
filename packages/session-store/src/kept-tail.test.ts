import * as fs from "node:fs";
import { join } from "node:path";
import { EventLogCorruptError, type SessionEvent, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore, type SessionStore } from "./index";

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => temp.cleanup());

/** A log of one closed turn and one open turn with a pending call, its writer closed cleanly. */
async function loggedSession(store: SessionStore): Promise<{ sessionId: string; runId: string }> {
  const { sessionId } = await store.create({ cwd: temp.root });
  const runId = uuidv7();
  const run = drafts(runId);
  const writer = await store.openWriter(sessionId);
  await writer.append([run.start(), run.user("first question"), run.assistant("an answer")]);
  await writer.append([run.end()]);
  await writer.append([run.start(true), run.user("second"), run.call("c1")]);
  await writer.close();
  return { sessionId, runId };
}

/** Replaces `from` by `to` (same byte length) at its first place at or after byte `after`. */
function overwrite(path: string, from: string, to: string, after = 0): void {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const bytes = fs.readFileSync(path);
  const at = bytes.indexOf(from, after);
  expect(at).toBeGreaterThanOrEqual(after);
  bytes.write(to, at);
  fs.writeFileSync(path, bytes);
}

function tailFile(home: string, sessionId: string): string {
  return join(home, "tails", `${sessionId}.json`);
}

describe("kept tail", () => {
  it("a clean close keeps the log's size and the invariants' state beside it", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await loggedSession(store);
    const kept = JSON.parse(fs.readFileSync(tailFile(temp.home, sessionId), "utf8"));
    expect(kept.size).toBe(fs.statSync(store.pathOf(sessionId)).size);
    const session = await store.readSession(sessionId);
    expect(kept.state).toEqual(session.invariantSnapshot());
    expect(kept.state.turn).toBe(session.openTurn?.seq);
    expect(kept.state.pending).toEqual(["c1"]);
  });

  it("openWriter continues from the kept tail without reading the log: a log damaged in the middle (same size) is appended to, and readers still refuse it", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId, runId } = await loggedSession(store);
    const path = store.pathOf(sessionId);
    // 8 KB more, so that the first lines lie before the last 4 KB the kept hash covers.
    const run = drafts(runId);
    const filler = await store.openWriter(sessionId);
    const [call] = filler.session.pendingCalls;
    await filler.append([run.output("c1", call!.seq, "x".repeat(8_000)), run.end()]);
    await filler.close();
    overwrite(path, '"first question"', '"first questio\\"', 0);
    await expect(store.readSession(sessionId)).rejects.toMatchObject({ code: "BAD_JSON" });

    const writer = await store.openWriter(sessionId);
    const [start] = await writer.append([drafts(uuidv7()).start(true)]);
    expect(start?.seq).toBe(10);
    expect(writer.lastSeq).toBe(10);
    // Asking for the whole session reads the log after all, and finds the damage.
    expect(() => writer.session).toThrow(EventLogCorruptError);
    await writer.close();
    const refused = await store.readSession(sessionId).catch((error: unknown) => error);
    expect(EventLogCorruptError.isInstance(refused) && refused.code).toBe("BAD_JSON");
  });

  it("a changed byte in the log's last 4 KB (same size) makes openWriter replay, and the replay finds the damage", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await loggedSession(store);
    const path = store.pathOf(sessionId);
    overwrite(path, '"second"', '"secon\\"');
    const size = fs.statSync(path).size;
    expect(JSON.parse(fs.readFileSync(tailFile(temp.home, sessionId), "utf8")).size).toBe(size);
    const refused = await store.openWriter(sessionId).catch((error: unknown) => error);
    expect(EventLogCorruptError.isInstance(refused) && refused.code).toBe("BAD_JSON");
  });

  it("a kept tail older than the log (a writer killed after appending, before its close) is not trusted: the log is replayed", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await loggedSession(store);
    // What a killed writer leaves: whole lines after the kept size, no new tail.
    const killed = await store.openWriter(sessionId);
    const [call] = killed.session.pendingCalls;
    const run = drafts(uuidv7());
    const lines = (await store.readSession(sessionId)).lastSeq;
    const events: SessionEvent[] = [
      {
        ...run.output("c1", call!.seq, "ok"),
        seq: lines + 1,
        ts: "2026-12-02T00:00:00.000Z",
      } as SessionEvent,
    ];
    await killed.close();
    const keptBefore = fs.readFileSync(tailFile(temp.home, sessionId), "utf8");
    fs.appendFileSync(store.pathOf(sessionId), `${JSON.stringify(events[0])}\n`);
    fs.writeFileSync(tailFile(temp.home, sessionId), keptBefore);
    // The stale tail still has c1 pending; the log has its output: a second output is refused
    // only when the writer replayed.
    const writer = await store.openWriter(sessionId);
    expect(writer.session.pendingCalls).toEqual([]);
    await expect(writer.append([run.output("c1", call!.seq, "again")])).rejects.toMatchObject({
      code: "DUPLICATE_OUTPUT",
    });
    await writer.close();
  });

  it("a kept tail of another version, or not JSON, is not trusted", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await loggedSession(store);
    const path = tailFile(temp.home, sessionId);
    const kept = JSON.parse(fs.readFileSync(path, "utf8"));
    // A stale state under a matching size and hash would be trusted if the version were not read.
    kept.state.pending = [];
    for (const text of [
      JSON.stringify({ ...kept, v: 2 }),
      "{",
      JSON.stringify({ ...kept, state: 1 }),
    ]) {
      fs.writeFileSync(path, text);
      const writer = await store.openWriter(sessionId);
      const [call] = writer.session.pendingCalls;
      expect(call?.callId).toBe("c1");
      await writer.close();
    }
  });

  it("a writer continued from the kept tail validates, rolls back a refused batch, and its session equals a replay", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId, runId } = await loggedSession(store);
    const run = drafts(runId);
    const writer = await store.openWriter(sessionId);
    // A turn/start inside the open turn is refused, and the valid draft before it is forgotten.
    await expect(writer.append([run.assistant("kept?"), run.start()])).rejects.toMatchObject({
      code: "TURN_NESTING",
    });
    await expect(writer.append([run.end()])).rejects.toMatchObject({ code: "TURN_NESTING" });
    const written = await writer.append([run.output("c1", 7, "done"), run.assistant("ok")]);
    expect(written.map((event) => event.seq)).toEqual([8, 9]);
    // Read whole now (the log as opened plus the writer's appends), then appended to as it is.
    expect(writer.session.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await writer.append([run.end()]);
    await writer.close();
    const replayed = await store.readSession(sessionId);
    expect(writer.session.events).toEqual(replayed.events);
    const kept = JSON.parse(fs.readFileSync(tailFile(temp.home, sessionId), "utf8"));
    expect(kept.state).toEqual(replayed.invariantSnapshot());
  });

  it("loadSession reads a kept-tail writer's log asynchronously, up to where it was opened, with the writer's appends", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId, runId } = await loggedSession(store);
    const run = drafts(runId);
    const writer = await store.openWriter(sessionId);
    await writer.append([run.output("c1", 7, "done")]);
    // Started before the next append, which the read must not see twice.
    const loading = writer.loadSession();
    const appended = writer.append([run.assistant("ok")]);
    const session = await loading;
    await appended;
    expect(writer.session).toBe(session);
    await writer.append([run.end()]);
    await writer.close();
    expect(session.events).toEqual((await store.readSession(sessionId)).events);
    expect(session.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("compact keeps a tail for the restored log (cold-tail.test.ts), delete forgets it", async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await loggedSession(store);
    await store.compact(sessionId);
    expect(JSON.parse(fs.readFileSync(tailFile(temp.home, sessionId), "utf8")).size).toBe(
      store.entry(sessionId)?.size,
    );
    const writer = await store.openWriter(sessionId);
    await writer.close();
    expect(fs.existsSync(tailFile(temp.home, sessionId))).toBe(true);
    await store.delete(sessionId);
    expect(fs.existsSync(tailFile(temp.home, sessionId))).toBe(false);
  });
});
