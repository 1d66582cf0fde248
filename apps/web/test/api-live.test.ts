/**
 * Live changes: `/api/live` reports sessions other processes change; a session's stream follows
 * its log.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { setupApiHome } from "./api-home";
import { readSse, type SseMessage } from "./sse";

const api = setupApiHome();
const { makeApp } = api;

/** Holds the store's next `changesSince` call until `release()`; `first` spies on the calls. */
function holdFirstChangesSince() {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const changesSince = api.store.changesSince.bind(api.store);
  const first = vi.spyOn(api.store, "changesSince").mockImplementationOnce(async (cursor) => {
    await held;
    return changesSince(cursor);
  });
  return { release: () => release(), first };
}

/** Creates a session in `workspaceId` and expects `/api/live`'s next message to report it. */
async function expectCreationReported(
  stream: AsyncGenerator<SseMessage>,
  workspaceId: string,
): Promise<{ sessionId: string }> {
  const created = await api.store.create({ cwd: api.seeded.home, workspaceId });
  await api.web.live.tick();
  const message = (await stream.next()).value;
  expect(message?.event).toBe("changes");
  expect(JSON.parse(message?.data ?? "{}").changes).toContainEqual(
    expect.objectContaining({ sessionId: created.sessionId, created: true }),
  );
  return created;
}

describe("live changes", () => {
  it("reports a session appended by another process over /api/live", async () => {
    const { app } = makeApp();
    api.web.live.stop();
    const response = await app.request("/api/live");
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    await api.web.live.tick();
    const created = await expectCreationReported(stream, "elsewhere");
    await stream.return(undefined);
    const list = await (await app.request("/api/sessions?workspace=elsewhere")).json();
    expect(list.items.map((item: { id: string }) => item.id)).toEqual([created.sessionId]);
  });

  it("sends ready on /api/live only after the watcher's first view: a log written after ready is reported", async () => {
    const { app } = makeApp();
    // Hold the watcher's first look at the change feed until the test lets it go.
    const { release, first } = holdFirstChangesSince();
    const response = await app.request("/api/live");
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    const ready = stream.next();
    const waited = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 200));
    // Before the first view, "ready" would promise what the watcher cannot keep.
    expect(await Promise.race([ready.then(() => "ready"), waited])).toBe("still waiting");
    release();
    expect((await ready).value?.event).toBe("ready");
    await expectCreationReported(stream, "after-ready");
    await stream.return(undefined);
    first.mockRestore();
  });

  it("after a stop and start while a tick still runs, ready() waits for a view taken after it", async () => {
    makeApp();
    const { release, first } = holdFirstChangesSince();
    api.web.live.start();
    api.web.live.stop();
    api.web.live.start();
    let ready = false;
    const readied = api.web.live.ready().then(() => {
      ready = true;
    });
    // The first look is under way and held: ready cannot have come.
    await expect.poll(() => first.mock.calls.length).toBeGreaterThan(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ready).toBe(false);
    release();
    await readied;
    // The held look and one after it.
    expect(first.mock.calls.length).toBeGreaterThanOrEqual(2);
    first.mockRestore();
  });

  it("streams one session's events after the seq the page has, reading only appended bytes", async () => {
    const { app } = makeApp();
    api.web.live.stop();
    await api.web.live.tick();
    const { sessionId } = await api.store.create({ cwd: api.seeded.home, workspaceId: "streamed" });
    const runId = "run-stream";
    const start = {
      type: "turn/start",
      runId,
      policy: { approval: "auto" },
      model: "m",
      resumed: false,
    } as const;
    await api.store.append(sessionId, [
      start,
      { type: "message", runId, role: "user", content: "one" },
    ]);
    const read = vi.spyOn(api.store, "read");
    // The stream's own reads (the in-memory test index re-reads changed logs by itself).
    const streamReads = () => read.mock.calls.filter(([, options]) => options?.tornTail === "stop");
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=1`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const first = (await stream.next()).value;
    expect(
      JSON.parse(first?.data ?? "{}").events.map((event: { seq: number }) => event.seq),
    ).toEqual([2]);
    for (const [index, content] of ["two", "three", "four"].entries()) {
      const sizeBefore = api.store.entry(sessionId)?.size;
      await api.store.append(sessionId, [{ type: "message", runId, role: "user", content }]);
      await api.web.live.tick();
      const message = (await stream.next()).value;
      expect(message?.event).toBe("events");
      const events = JSON.parse(message?.data ?? "{}").events as { seq: number; content: string }[];
      expect(events.map((event) => [event.seq, event.content])).toEqual([[3 + index, content]]);
      // The read for this change started where the last one stopped: no re-read of the session.
      expect(streamReads().at(-1)?.[1]?.fromOffset).toBe(sizeBefore);
    }
    expect(streamReads()).toHaveLength(4);
    await stream.return(undefined);
    read.mockRestore();
  });

  it("reports an append whose journal record a tick saw before the log's bytes", async () => {
    makeApp();
    api.web.live.stop();
    const { sessionId } = await api.store.create({ cwd: api.seeded.home, workspaceId: "raced" });
    await api.web.live.tick();
    const before = api.store.entry(sessionId);
    // The store writes the journal record first: a tick between it and the log's bytes finds the
    // session named but its log unchanged (simulated by the entry as it was before the append).
    const entry = vi.spyOn(api.store, "entry").mockReturnValue(before);
    await api.store.append(sessionId, [{ type: "x-race", runId: "r" } as never]);
    expect(await api.web.live.tick()).toEqual([]);
    entry.mockRestore();
    expect(await api.web.live.tick()).toContainEqual(
      expect.objectContaining({ sessionId, created: false }),
    );
  });

  it("an append just after a stream opens reaches it, before the live feed ever ticked", async () => {
    const { app } = makeApp();
    const { sessionId } = await api.store.create({
      cwd: api.seeded.home,
      workspaceId: "first-tick",
    });
    // The stream starts the live feed; its first look at the logs must come before the append,
    // or the append is part of that first view and never reported (the page waited forever).
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    await api.store.append(sessionId, [{ type: "x-first", runId: "r" } as never]);
    const next = await Promise.race([
      stream.next(),
      new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 3_000)),
    ]);
    expect(next === "timeout" ? next : next.value?.event).toBe("events");
    await stream.return(undefined);
  });

  it("a log cut mid-line under an open stream: it waits at the torn line, and continues after a repair", async () => {
    const { app } = makeApp();
    api.web.live.stop();
    await api.web.live.tick();
    const { sessionId } = await api.store.create({ cwd: api.seeded.home, workspaceId: "cut" });
    const runId = "run-cut";
    const message = (content: string) =>
      ({ type: "message", runId, role: "user", content }) as const;
    await api.store.append(sessionId, [
      { type: "turn/start", runId, policy: { approval: "auto" }, model: "m", resumed: false },
      message("kept"),
    ]);
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const seqsOf = (data: string | undefined) =>
      (JSON.parse(data ?? "{}").events as { seq: number }[]).map((event) => event.seq);
    expect(seqsOf((await stream.next()).value?.data)).toEqual([1, 2]);
    const errors = vi.spyOn(console, "error");
    const within = (ms: number) =>
      Promise.race([
        stream.next(),
        new Promise<"nothing">((resolve) => setTimeout(() => resolve("nothing"), ms)),
      ]);
    // A writer died in the middle of a line: the stream sends nothing and waits.
    const path = api.store.pathOf(sessionId);
    appendFileSync(path, '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"mess');
    api.store.announceChange(sessionId);
    await api.web.live.tick();
    const waiting = stream.next();
    expect(
      await Promise.race([waiting, new Promise((r) => setTimeout(() => r("nothing"), 300))]),
    ).toBe("nothing");
    // Resuming repairs the torn tail (the fragment moves aside) and appends: the stream goes on.
    await api.store.repair(sessionId);
    await api.store.append(sessionId, [message("after the repair")]);
    await api.web.live.tick();
    const next = (await waiting).value;
    expect(next?.event).toBe("events");
    expect(seqsOf(next?.data)).toEqual([3]);
    // Another program cuts the log below where the stream stopped (whole lines of seq 3 gone):
    // the stream reads the log again from its start instead of failing, and goes on.
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1));
    api.store.announceChange(sessionId);
    await api.web.live.tick();
    await api.store.append(sessionId, [message("three again"), message("four")]);
    await api.web.live.tick();
    const later = await within(3_000);
    expect(later === "nothing" ? later : seqsOf(later.value?.data)).toEqual([4]);
    // A line that is not JSON: the events before it are sent, then the stream follows no more
    // (and stays open: no reconnect loop re-reading the log).
    appendFileSync(
      path,
      `${JSON.stringify({ ...message("five"), seq: 5, ts: "2026-01-01T00:00:00.000Z" })}\nnot json\n`,
    );
    api.store.announceChange(sessionId);
    await api.web.live.tick();
    const fifth = await within(3_000);
    expect(fifth === "nothing" ? fifth : seqsOf(fifth.value?.data)).toEqual([5]);
    appendFileSync(path, "more\n");
    api.store.announceChange(sessionId);
    await api.web.live.tick();
    expect(await within(300)).toBe("nothing");
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
    // A read is still pending (the stream stays open): end the generator without waiting for it.
    void stream.return(undefined);
  });

  it.each([
    ["deleted", (log: string) => rmSync(log)],
    // Replaced by another program with what the store never reads through (a read of it
    // fails with LOG_NOT_A_FILE): failed the stream with a stack, as a deletion did.
    [
      "replaced by a symbolic link",
      (log: string) => {
        renameSync(log, `${log}.moved`);
        symlinkSync(`${log}.moved`, log);
      },
    ],
    [
      "replaced by a folder",
      (log: string) => {
        rmSync(log);
        mkdirSync(log);
      },
    ],
  ])("ends a session's stream when its log is %s by hand", async (_how, replace) => {
    const { app } = makeApp();
    api.web.live.stop();
    await api.web.live.tick();
    const { sessionId } = await api.store.create({ cwd: api.seeded.home, workspaceId: "gone" });
    const response = await app.request(`/api/sessions/${sessionId}/stream?after=0`);
    if (response.body === null) throw new Error("no body");
    const stream = readSse(response.body);
    expect((await stream.next()).value?.event).toBe("ready");
    const errors = vi.spyOn(console, "error");
    replace(api.store.pathOf(sessionId));
    await api.web.live.tick();
    const end = await Promise.race([
      stream.next(),
      new Promise<"open">((resolve) => setTimeout(() => resolve("open"), 3_000)),
    ]);
    expect(end === "open" ? end : end.done).toBe(true);
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it("a quiet tick of the live feed looks at no log", async () => {
    makeApp();
    api.web.live.stop();
    await api.web.live.tick();
    const entry = vi.spyOn(api.store, "entry");
    const scan = vi.spyOn(api.store, "scan");
    expect(await api.web.live.tick()).toEqual([]);
    expect(entry).not.toHaveBeenCalled();
    expect(scan).not.toHaveBeenCalled();
    entry.mockRestore();
    scan.mockRestore();
  });
});
