import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import { EventLogCorruptError, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { zstdBlockAt } from "../test/cold-logs";
import { drafts, tempDirectory } from "../test/helpers";
import { compressLog } from "./cold-log";
import { createSessionStore, type SessionStore } from "./index";
import { decompressBytes, firstFrame } from "./zstd";

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => temp.cleanup());

/** A 100 KB tool output: over the default blob threshold (64 KiB). */
const LARGE_OUTPUT = "large output line\n".repeat(5_700);

/**
 * A log of one closed turn, then an open one with a pending call `c1` after 8 KB of inline
 * output (so that line 3 lies before the last 4 KB the kept hash covers); with `inlineLarge`,
 * a 100 KB output kept inline before it (written with no blob threshold), which `compact` moves.
 */
async function coldCandidate(inlineLarge = false): Promise<string> {
  const writing = createSessionStore({
    home: temp.home,
    ...(inlineLarge ? { blobThreshold: Number.POSITIVE_INFINITY } : {}),
  });
  const { sessionId } = await writing.create({ cwd: temp.root });
  const run = drafts(uuidv7());
  const writer = await writing.openWriter(sessionId);
  await writer.append([run.start(), run.user("first question"), run.assistant("an answer")]);
  await writer.append([run.end()]);
  const [, , large] = await writer.append([run.start(true), run.user("second"), run.call("c0")]);
  await writer.append([run.output("c0", large!.seq, inlineLarge ? LARGE_OUTPUT : "small")]);
  const [filler] = await writer.append([run.call("c2")]);
  // Incompressible, so the compressed log has bytes before the last 4 KB the kept tail hashes.
  const noise = randomBytes(6_000).toString("hex");
  await writer.append([run.output("c2", filler!.seq, noise), run.call("c1")]);
  await writer.close();
  return sessionId;
}

function tailOf(sessionId: string): { size: number; state: unknown } {
  return JSON.parse(fs.readFileSync(join(temp.home, "tails", `${sessionId}.json`), "utf8"));
}

/** Rewrites the cold log of `sessionId` as `change` makes its plain bytes. */
function rewriteCold(store: SessionStore, sessionId: string, change: (plain: Buffer) => Buffer) {
  const cold = `${store.pathOf(sessionId)}.zst`;
  fs.writeFileSync(cold, compressLog(change(decompressBytes(fs.readFileSync(cold)))));
}

/** `plain` with `from` replaced by `to` (same byte length) at its first place. */
function overwrite(plain: Buffer, from: string, to: string): Buffer {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const at = plain.indexOf(from);
  expect(at).toBeGreaterThan(0);
  const copy = Buffer.from(plain);
  copy.write(to, at);
  return copy;
}

/**
 * Damages the compressed log of `sessionId` in place, before its last 4 KB (the bytes the kept
 * tail hashes of a `.zst`): only a reader that decompresses it sees the damage.
 */
function damageCompressed(store: SessionStore, sessionId: string): void {
  const cold = `${store.pathOf(sessionId)}.zst`;
  const bytes = fs.readFileSync(cold);
  // The events' frame's first block made reserved (type 3): zstd refuses it.
  const at = zstdBlockAt(bytes, firstFrame(bytes)?.end ?? 0, 0);
  expect(at).toBeLessThan(bytes.length - 4096);
  bytes[at] = (bytes[at] as number) | 0b110;
  const { atime, mtime } = fs.statSync(cold);
  fs.writeFileSync(cold, bytes);
  fs.utimesSync(cold, atime, mtime);
}

describe("kept tail of a cold log", () => {
  it("compact keeps the tail of the compressed log, and the next writer appends to a segment without reading it", async () => {
    const store = createSessionStore({ home: temp.home });
    const sessionId = await coldCandidate();
    const before = await store.readSession(sessionId);
    expect((await store.compact(sessionId)).action).toBe("compressed");
    expect(fs.existsSync(store.pathOf(sessionId))).toBe(false);
    const kept = tailOf(sessionId);
    expect(kept.size).toBe(store.entry(sessionId)?.size);
    expect(kept.state).toEqual(before.invariantSnapshot());
    // Damage before the last 4 KB: only a writer that replays (or restores) would see it.
    damageCompressed(store, sessionId);
    await expect(store.readSession(sessionId)).rejects.toMatchObject({ code: "COLD_LOG_CORRUPT" });

    const writer = await store.openWriter(sessionId);
    expect(fs.existsSync(store.pathOf(sessionId))).toBe(false);
    expect(writer.lastSeq).toBe(before.lastSeq);
    // c1 is pending in the kept state: an output for it is accepted, one for c9 refused.
    const run = drafts(uuidv7());
    await expect(writer.append([run.output("c9", 1, "no")])).rejects.toMatchObject({
      code: "ORPHAN_OUTPUT",
    });
    const call = before.pendingCalls[0]!;
    const [output] = await writer.append([run.output("c1", call.seq, "done")]);
    expect(output?.seq).toBe(before.lastSeq + 1);
    await writer.close();
    const refused = await store.readSession(sessionId).catch((error: unknown) => error);
    expect(EventLogCorruptError.isInstance(refused) && refused.code).toBe("COLD_LOG_CORRUPT");
    // The next writer continues from the tail the first kept (over the .zst and its segment).
    const next = await store.openWriter(sessionId);
    expect(next.lastSeq).toBe(before.lastSeq + 1);
    await next.close();
  });

  it("a compact that moved payloads to blobs keeps the tail of the rewritten bytes: a writer continues it, appends to its segment, and it verifies whole", async () => {
    const sessionId = await coldCandidate(true);
    const store = createSessionStore({ home: temp.home });
    const plainSize = fs.statSync(store.pathOf(sessionId)).size;
    const before = await store.readSession(sessionId);
    await store.compact(sessionId);
    const compressedPlainSize = store.entry(sessionId)?.size ?? 0;
    expect(compressedPlainSize).toBeLessThan(plainSize - 90_000);
    expect(tailOf(sessionId).size).toBe(compressedPlainSize);

    const writer = await store.openWriter(sessionId);
    const run = drafts(uuidv7());
    await writer.append([run.output("c1", before.pendingCalls[0]!.seq, "done"), run.end()]);
    await writer.close();
    const segment = `${store.pathOf(sessionId)}.zst.${compressedPlainSize}.seg`;
    expect(tailOf(sessionId).size).toBe(compressedPlainSize + fs.statSync(segment).size);
    const after = await store.readSession(sessionId);
    expect(after.events.slice(0, before.events.length)).toEqual(before.events);
    expect(after.events.map((event) => event.type).slice(-2)).toEqual([
      "function_call_output",
      "turn/end",
    ]);
    const outputs = after.events.filter((event) => event.type === "function_call_output");
    expect(outputs.some((event) => "output" in event && event.output === LARGE_OUTPUT)).toBe(true);
    expect(tailOf(sessionId).state).toEqual(after.invariantSnapshot());
  });

  it("a segment whose last bytes changed since the tail was kept is replayed (damage there refused)", async () => {
    const sessionId = await coldCandidate(true);
    const store = createSessionStore({ home: temp.home });
    const before = await store.readSession(sessionId);
    await store.compact(sessionId);
    const writer = await store.openWriter(sessionId);
    const [output] = await writer.append([
      drafts(uuidv7()).output("c1", before.pendingCalls[0]!.seq, "done"),
    ]);
    expect(output?.seq).toBe(before.lastSeq + 1);
    await writer.close();
    const sessions = join(temp.home, "sessions");
    const [name] = fs.readdirSync(sessions).filter((file) => file.endsWith(".seg"));
    const segment = join(sessions, name!);
    const text = fs.readFileSync(segment, "utf8").replace('"done"', '"don\\"');
    fs.writeFileSync(segment, text);
    await expect(store.openWriter(sessionId)).rejects.toMatchObject({ code: "BAD_JSON" });
  });

  it("a cold log whose restored bytes differ from the kept tail is replayed: damage in the last 4 KB is refused, a shorter log continued from its own state", async () => {
    const store = createSessionStore({ home: temp.home });
    const damaged = await coldCandidate();
    await store.compact(damaged);
    rewriteCold(store, damaged, (plain) => overwrite(plain, '"c1"', '"c\\"'));
    const refused = await store.openWriter(damaged).catch((error: unknown) => error);
    expect(EventLogCorruptError.isInstance(refused) && refused.code).toBe("BAD_JSON");

    const shorter = await coldCandidate();
    const before = await store.readSession(shorter);
    await store.compact(shorter);
    // The last line (the call c1) gone: the kept state (c1 pending, its seq last) is not trusted.
    rewriteCold(store, shorter, (plain) => plain.subarray(0, plain.lastIndexOf(0x0a, -2) + 1));
    const writer = await store.openWriter(shorter);
    expect(writer.lastSeq).toBe(before.lastSeq - 1);
    expect(writer.session.pendingCalls).toEqual([]);
    await writer.close();
    expect((await store.readSession(shorter)).lastSeq).toBe(before.lastSeq - 1);
  });
});
