import {
  appendFileSync,
  existsSync,
  readFileSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, readError, tempDirectory } from "../test/helpers";
import { createSessionStore, type ReadEvent, type SessionStore } from "./index";

let temp: ReturnType<typeof tempDirectory>;
let store: SessionStore;

beforeEach(() => {
  temp = tempDirectory();
  store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
});
afterEach(() => temp.cleanup());

/** Path of the raw blob a log line names (`"blob":"<hash>"`). */
function blobOf(line: string): string {
  const hash = /"blob":"([0-9a-f]{64})"/.exec(line)?.[1];
  if (hash === undefined) throw new Error(`no blob in ${line.slice(0, 80)}`);
  return join(temp.home, "blobs", "sha256", hash.slice(0, 2), hash.slice(2));
}

function lines(sessionId: string): string[] {
  return readFileSync(store.pathOf(sessionId), "utf8").split("\n").slice(0, -1);
}

/** The events `read` yields until it throws (the error swallowed: the caller reads it again). */
async function collect(events: AsyncIterable<ReadEvent>): Promise<ReadEvent[]> {
  const found: ReadEvent[] = [];
  try {
    for await (const event of events) found.push(event);
  } catch (error) {
    if (found.length === 0) throw error;
  }
  return found;
}

/**
 * A session whose last turn got as far as a large tool output and an assistant message, then
 * stopped (no turn/end): what the disk holds after a crash before the turn's fsync, once the
 * blob is `damage`d as a power cut may leave it.
 */
async function cutTurn(damage: "removed" | "short" | "empty" | "other bytes", more = 0) {
  const { sessionId } = await store.create({ cwd: temp.root });
  const done = drafts(uuidv7());
  await store.append(sessionId, [done.start(), done.user("first"), done.end()]);
  const run = drafts(uuidv7());
  const writer = await store.openWriter(sessionId);
  const [, , call] = await writer.append([run.start(), run.user("go"), run.call("c1")]);
  const [output] = await writer.append([run.output("c1", call!.seq, "out ".repeat(2000))]);
  for (let index = 0; index < more; index += 1) await writer.append([run.assistant(`${index}`)]);
  await writer.close();
  const all = lines(sessionId);
  const line = output!.seq + 1;
  const blob = blobOf(all[line - 1]!);
  if (damage === "removed") unlinkSync(blob);
  if (damage === "short") truncateSync(blob, 100);
  if (damage === "empty") truncateSync(blob, 0);
  if (damage === "other bytes") writeFileSync(blob, "x".repeat(8000));
  return { sessionId, line, before: all, outputSeq: output!.seq, callId: "c1" };
}

/** A session of one turn that ended: a call and its large output (a blob), then turn/end. */
async function endedTurn() {
  const { sessionId } = await store.create({ cwd: temp.root });
  const run = drafts(uuidv7());
  const [, , call] = await store.append(sessionId, [run.start(), run.user("go"), run.call("c1")]);
  const [output] = await store.append(sessionId, [
    run.output("c1", call!.seq, "out ".repeat(2000)),
    run.end(),
  ]);
  return { sessionId, output };
}

describe("a blob a crash cut short after the last acknowledged point", () => {
  for (const damage of ["removed", "short", "empty", "other bytes"] as const) {
    it(`blob ${damage}: reads say TORN_TAIL at its line; resume moves the turn's lines from there aside and closes the turn`, async () => {
      const cut = await cutTurn(damage, 2);
      const error = await readError(store.readSession(cut.sessionId));
      expect(error).toMatchObject({ code: "TORN_TAIL", line: cut.line, seq: cut.outputSeq });
      expect(error.message).toContain("no acknowledged write followed");

      const resumed = await store.resumeSession(cut.sessionId);
      // Everything before the line is kept byte for byte; the fragment is in a sidecar.
      expect(lines(cut.sessionId)).toEqual(cut.before.slice(0, cut.line - 1));
      expect(readFileSync(store.pathOf(cut.sessionId), "utf8")).not.toContain('"blob"');
      // The interrupted turn's repair: the call gets a synthetic output.
      expect(resumed.synthesizedEvents).toContainEqual(
        expect.objectContaining({ type: "function_call_output", callId: cut.callId }),
      );
      await store.append(cut.sessionId, resumed.synthesizedEvents);
      const session = await store.readSession(cut.sessionId);
      expect(session.openTurn).toBeNull();
      // The same output written again stores its blob whole again (never reuses the cut one).
      const run = drafts(uuidv7());
      const [, , call] = await store.append(cut.sessionId, [
        run.start(),
        run.user("again"),
        run.call("c2"),
      ]);
      await store.append(cut.sessionId, [
        run.output("c2", call!.seq, "out ".repeat(2000)),
        run.end(),
      ]);
      const events = (await store.readSession(cut.sessionId)).events;
      expect(events.at(-2)).toMatchObject({ output: "out ".repeat(2000) });
    });
  }

  it("a writer continued from its kept tail (no replay) says the same TORN_TAIL when its session is read", async () => {
    const cut = await cutTurn("short", 1);
    const writer = await store.openWriter(cut.sessionId);
    try {
      const error = (() => {
        try {
          return writer.session;
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toMatchObject({ code: "TORN_TAIL", line: cut.line });
    } finally {
      await writer.close();
    }
  });

  it('read() yields the lines before it, then says TORN_TAIL (or, with tornTail: "stop", ends there); from an offset, where no turn is known, BLOB_MISSING', async () => {
    const cut = await cutTurn("removed", 1);
    const seen: number[] = [];
    const failure = await readError(
      (async () => {
        for await (const { line } of store.read(cut.sessionId)) seen.push(line);
      })(),
    );
    expect(failure).toMatchObject({ code: "TORN_TAIL", line: cut.line });
    expect(seen.at(-1)).toBe(cut.line - 1);
    const stopped: number[] = [];
    for await (const { line } of store.read(cut.sessionId, { tornTail: "stop" }))
      stopped.push(line);
    expect(stopped).toEqual(seen);
    const { offset } = (await collect(store.read(cut.sessionId))).at(-1)!;
    const fromOffset = await readError(
      (async () => {
        for await (const _event of store.read(cut.sessionId, { fromOffset: offset })) {
          // read to the end
        }
      })(),
    );
    expect(fromOffset.code).toBe("BLOB_MISSING");
  });

  it("repair moves the lines aside into a sidecar that holds them byte for byte", async () => {
    const cut = await cutTurn("removed", 1);
    const report = await store.repair(cut.sessionId);
    expect(report.action).toBe("moved-torn-tail");
    expect(readFileSync(report.sidecarPath!, "utf8")).toBe(
      `${cut.before.slice(cut.line - 1).join("\n")}\n`,
    );
    expect((await store.readSession(cut.sessionId)).openTurn).not.toBeNull();
  });

  it("a blob missing in a last turn that ended is a torn tail (its fsync ran beside the log's): repair moves the lines to a sidecar, nothing acknowledged is lost", async () => {
    const { sessionId } = await store.create({ cwd: temp.root });
    const done = drafts(uuidv7());
    await store.append(sessionId, [done.start(), done.user("first"), done.end()]);
    const run = drafts(uuidv7());
    const [, , call] = await store.append(sessionId, [run.start(), run.user("go"), run.call("c1")]);
    // The output, the answer and the turn's end in one append: one fsync of the log and the blob.
    const [output] = await store.append(sessionId, [
      run.output("c1", call!.seq, "out ".repeat(2000)),
      run.assistant("done"),
      run.end(),
    ]);
    const before = lines(sessionId);
    const line = output!.seq + 1;
    unlinkSync(blobOf(before[line - 1]!));
    const error = await readError(store.readSession(sessionId));
    expect(error).toMatchObject({ code: "TORN_TAIL", line, seq: output!.seq, sessionId });
    const report = await store.repair(sessionId);
    expect(report.action).toBe("moved-torn-tail");
    // The sidecar holds the output, the answer and the turn's end byte for byte; every line
    // before them (the first turn, acknowledged at its end) stays in the log.
    expect(readFileSync(report.sidecarPath!, "utf8")).toBe(
      `${before.slice(line - 1).join("\n")}\n`,
    );
    expect(lines(sessionId)).toEqual(before.slice(0, line - 1));
    const session = await store.readSession(sessionId);
    expect(session.events.filter((event) => event.type === "turn/end")).toHaveLength(1);
    expect(session.openTurn).not.toBeNull();
  });

  it("a compressed blob (written by compact, durable before any log named it) damaged in a last turn that ended is damage: BLOB_CORRUPT, nothing moved", async () => {
    // Session one's output is compacted to a `.zst`; session two's last turn writes the same
    // output, which dedupes onto that compressed form (no raw file is written).
    const { sessionId: one } = await endedTurn();
    await store.compact(one);
    const { sessionId: two, output } = await endedTurn();
    const before = lines(two);
    const zst = `${blobOf(before[output!.seq]!)}.zst`;
    expect(existsSync(zst)).toBe(true);
    writeFileSync(zst, "not a zstd frame");
    const error = await readError(store.readSession(two));
    expect(error).toMatchObject({ code: "BLOB_CORRUPT", seq: output!.seq, sessionId: two });
    await expect(store.repair(two)).rejects.toMatchObject({ code: "BLOB_CORRUPT" });
    expect(lines(two)).toEqual(before);
  });

  it("a blob missing in a turn before the last (a line follows its turn's end) is damage: BLOB_MISSING naming session, line and seq, refused by read, resume and repair, nothing changed", async () => {
    const { sessionId, output } = await endedTurn();
    const next = drafts(uuidv7());
    await store.append(sessionId, [next.start(), next.user("again")]);
    const before = readFileSync(store.pathOf(sessionId));
    unlinkSync(blobOf(lines(sessionId)[output!.seq]!));
    // One after another: each is refused on its own (and none runs beside another's repair).
    for (const attempt of [
      () => store.readSession(sessionId),
      () => store.resumeSession(sessionId),
      () => store.repair(sessionId),
    ]) {
      expect(await readError(attempt())).toMatchObject({
        code: "BLOB_MISSING",
        sessionId,
        line: output!.seq + 1,
        seq: output!.seq,
      });
    }
    expect(readFileSync(store.pathOf(sessionId))).toEqual(before);
  });

  it("a blob missing before an approval request that ends the log is a torn tail; with a line after the request (its fsync ended), damage", async () => {
    for (const decided of [false, true]) {
      const { sessionId } = await store.create({ cwd: temp.root });
      const runId = uuidv7();
      const run = drafts(runId);
      const writer = await store.openWriter(sessionId);
      const [, , call] = await writer.append([run.start(), run.user("go"), run.call("c1")]);
      const [output] = await writer.append([run.output("c1", call!.seq, "out ".repeat(2000))]);
      await writer.append([run.call("c2"), run.approval("c2")]);
      if (decided) {
        await writer.append([
          { type: "approval/decision", runId, callId: "c2", decision: "reject" },
        ]);
      }
      await writer.close();
      unlinkSync(blobOf(lines(sessionId)[output!.seq]!));
      expect(await readError(store.readSession(sessionId)), String(decided)).toMatchObject({
        code: decided ? "BLOB_MISSING" : "TORN_TAIL",
        line: output!.seq + 1,
      });
    }
  });

  it("a torn last line after a turn's end (written once that end was acknowledged) makes a missing blob before it damage", async () => {
    const { sessionId, output } = await endedTurn();
    unlinkSync(blobOf(lines(sessionId)[output!.seq]!));
    expect(await readError(store.readSession(sessionId))).toMatchObject({ code: "TORN_TAIL" });
    appendFileSync(store.pathOf(sessionId), '{"seq":');
    expect(await readError(store.readSession(sessionId))).toMatchObject({
      code: "BLOB_MISSING",
      seq: output!.seq,
    });
  });

  it("a blob missing outside any turn (a seed message) is damage", async () => {
    const run = drafts(uuidv7());
    const { sessionId } = await store.create({
      cwd: temp.root,
      seed: [run.system("seed ".repeat(1000))],
    });
    unlinkSync(blobOf(lines(sessionId)[1]!));
    expect(await readError(store.resumeSession(sessionId))).toMatchObject({
      code: "BLOB_MISSING",
    });
    expect(existsSync(store.pathOf(sessionId))).toBe(true);
  });
});
