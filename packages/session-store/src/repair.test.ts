import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { EventLogCorruptError, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, type TempDirectory, tempStore } from "../test/helpers";
import type { SessionStore } from "./index";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

async function sessionWithTurn(): Promise<string> {
  const { sessionId } = await store.create({ cwd: temp.root, seed: [drafts("s").system("sys")] });
  const run = drafts(uuidv7());
  await store.append(sessionId, [run.start(), run.user("q"), run.assistant("a"), run.end()]);
  return sessionId;
}

function sidecars(sessionId: string): string[] {
  return readdirSync(dirname(store.pathOf(sessionId))).filter((name) =>
    name.startsWith(`${sessionId}.jsonl.torn-`),
  );
}

describe("repair", () => {
  it("moves a torn tail into a sidecar beside the log and leaves the log at its last whole line", async () => {
    const id = await sessionWithTurn();
    const whole = readFileSync(store.pathOf(id));
    const fragment = '{"seq":6,"ts":"2026-01-01T00:00:00.000Z","type":"message","content":"半';
    appendFileSync(store.pathOf(id), fragment);
    await expect(store.readSession(id)).rejects.toMatchObject({
      code: "TORN_TAIL",
      line: 7,
      offset: whole.length,
    });

    const report = await store.repair(id);
    expect(report).toMatchObject({
      sessionId: id,
      action: "moved-torn-tail",
      bytesMoved: Buffer.byteLength(fragment),
      size: whole.length,
    });
    expect(readFileSync(store.pathOf(id))).toEqual(whole);
    expect(readFileSync(report.sidecarPath!, "utf8")).toBe(fragment);
    expect(dirname(report.sidecarPath!)).toBe(dirname(store.pathOf(id)));
    expect((await store.readSession(id)).lastSeq).toBe(5);
    expect(await store.lockOwner(id)).toBeUndefined();
  });

  it("does nothing to a healthy log, and a second repair after a fix does nothing", async () => {
    const id = await sessionWithTurn();
    appendFileSync(store.pathOf(id), "{");
    await store.repair(id);
    const after = readFileSync(store.pathOf(id));
    expect(await store.repair(id)).toEqual({
      sessionId: id,
      action: "none",
      bytesMoved: 0,
      size: after.length,
    });
    expect(readFileSync(store.pathOf(id))).toEqual(after);
    expect(sidecars(id)).toHaveLength(1);
  });

  it("refuses damage in the middle, untouched: the same error, no sidecar, same bytes", async () => {
    const id = await sessionWithTurn();
    const lines = readFileSync(store.pathOf(id), "utf8").split("\n");
    lines[3] = '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"message","role":"user","content":';
    writeFileSync(store.pathOf(id), lines.join("\n"));
    const before = readFileSync(store.pathOf(id));
    const error = await store.repair(id).catch((caught: unknown) => caught);
    expect(EventLogCorruptError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "BAD_JSON", line: 4, sessionId: id });
    expect(readFileSync(store.pathOf(id))).toEqual(before);
    expect(sidecars(id)).toEqual([]);
    // Resume never repairs it either.
    await expect(store.resumeSession(id)).rejects.toMatchObject({ code: "BAD_JSON", line: 4 });
    expect(readFileSync(store.pathOf(id))).toEqual(before);
  });

  it("refuses a torn tail behind damage in the middle: nothing is moved", async () => {
    const id = await sessionWithTurn();
    const lines = readFileSync(store.pathOf(id), "utf8").split("\n");
    lines[2] = lines[2]!.replace('"seq":2', '"seq":9');
    writeFileSync(store.pathOf(id), `${lines.join("\n")}{"seq":`);
    const before = readFileSync(store.pathOf(id));
    await expect(store.repair(id)).rejects.toMatchObject({ code: "SEQ_GAP", line: 3 });
    expect(readFileSync(store.pathOf(id))).toEqual(before);
    expect(sidecars(id)).toEqual([]);
  });

  it("a writer refuses a log with a torn tail until it is repaired", async () => {
    const id = await sessionWithTurn();
    appendFileSync(store.pathOf(id), '{"seq":6');
    await expect(store.openWriter(id)).rejects.toMatchObject({ code: "TORN_TAIL" });
    expect(await store.lockOwner(id)).toBeUndefined();
    await store.repair(id);
    const run = drafts(uuidv7());
    expect((await store.append(id, [run.start()]))[0]?.seq).toBe(6);
  });

  it("refuses while a writer holds the session", async () => {
    const id = await sessionWithTurn();
    const writer = await store.openWriter(id);
    await expect(store.repair(id)).rejects.toMatchObject({ code: "SESSION_BUSY" });
    await writer.close();
  });
});
