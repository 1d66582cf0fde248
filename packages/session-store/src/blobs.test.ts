import { createHash } from "node:crypto";
import {
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { TapedeckError, uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, readError, type TempDirectory, tempStore } from "../test/helpers";
import { BlobStore } from "./blob-store";
import {
  BlobReadError,
  createSessionStore,
  InvalidBlobHashError,
  type SessionStore,
} from "./index";
import { compressBytes, decompressBytes } from "./zstd";

let temp: TempDirectory;
let store: SessionStore;
beforeEach(() => ({ temp, store } = tempStore()));
afterEach(() => temp.cleanup());

/** A 1 MiB tool output of varied text (not one repeated character: compression must work). */
function bigOutput(seed: string): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < 1 << 20; index += 1) {
    const line = `${seed} line ${index}: ${(index * 7919).toString(36)} ✓ ${"x".repeat(index % 40)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, 1 << 20);
}

/** A session with one call whose output is `output`; its id and the output's seq. */
/**
 * A session with `output` in a turn of its own; `laterTurn`: another turn after it (a blob
 * damaged before that turn's start is damage, not a write a crash cut short).
 */
async function sessionWithOutput(output: string, laterTurn = false) {
  const { sessionId } = await store.create({ cwd: temp.root });
  const run = drafts(uuidv7());
  await store.append(sessionId, [run.start(), run.user("go"), run.call("c1")]);
  const [event] = await store.append(sessionId, [run.output("c1", 3, output)]);
  await store.append(sessionId, [run.end()]);
  if (laterTurn) {
    const next = drafts(uuidv7());
    await store.append(sessionId, [next.start(), next.user("next"), next.end()]);
  }
  return { sessionId, seq: event!.seq };
}

function blobFiles(): string[] {
  const root = join(temp.home, "blobs", "sha256");
  return readdirSync(root).flatMap((prefix) =>
    readdirSync(join(root, prefix)).map((name) => join(root, prefix, name)),
  );
}

describe("blobs", () => {
  it("a 1 MiB tool output goes to a blob: the log stays small and every read gives the exact string", async () => {
    const output = bigOutput("a");
    const { sessionId, seq } = await sessionWithOutput(output);
    expect(statSync(store.pathOf(sessionId)).size).toBeLessThan(8 * 1024);
    const line = readFileSync(store.pathOf(sessionId), "utf8").split("\n")[seq]!;
    expect(JSON.parse(line)).toMatchObject({ outputBlob: { bytes: Buffer.byteLength(output) } });
    const session = await store.readSession(sessionId);
    const read = session.events.find((event) => event.seq === seq);
    expect(read).toMatchObject({ type: "function_call_output", output });
    expect(read).not.toHaveProperty("outputBlob");
    for await (const entry of store.read(sessionId)) {
      if (entry.event.seq === seq) expect(entry.event).toMatchObject({ output });
    }
    // Stored as is by the writer (no compression on the append path): its name is its sha256.
    const [file] = blobFiles();
    expect(file!.endsWith(".zst")).toBe(false);
    const hash = createHash("sha256").update(readFileSync(file!)).digest("hex");
    expect(file!.endsWith(`${hash.slice(0, 2)}/${hash.slice(2)}`)).toBe(true);
    // compact stores it compressed; reads are the same.
    await store.compact(sessionId);
    expect(blobFiles()).toEqual([`${file}.zst`]);
    expect(statSync(`${file}.zst`).size).toBeLessThan(output.length / 3);
    const again = await store.readSession(sessionId);
    expect(again.events).toEqual(session.events);
  });

  it("compact moves an inline payload over the threshold to a blob; every read, a fork and a resume see the same events", async () => {
    const inline = createSessionStore({ home: temp.home, blobThreshold: Number.POSITIVE_INFINITY });
    const output = bigOutput("old");
    const { sessionId } = await inline.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    await inline.append(sessionId, [run.start(), run.user("x".repeat(70_000)), run.call("c1")]);
    const [out] = await inline.append(sessionId, [run.output("c1", 3, output)]);
    await inline.append(sessionId, [run.assistant("done"), run.end()]);
    const fork = await inline.fork(sessionId, { atSeq: out!.seq });
    const before = (await store.readSession(sessionId)).events;
    const forkBefore = (await store.readSession(fork.sessionId)).events;
    const plainBytes = statSync(store.pathOf(sessionId)).size;
    expect(readdirSync(temp.home)).not.toContain("blobs");

    const result = await store.compact(sessionId);
    expect(result.action).toBe("compressed");
    expect(result.after).toBeLessThan(plainBytes / 3);
    // The log now names two blobs (the user's 70 kB message and the output), stored compressed.
    const text = decompressBytes(readFileSync(`${store.pathOf(sessionId)}.zst`)).toString("utf8");
    expect(text).toContain('"outputBlob":');
    expect(text).toContain('"contentBlob":');
    expect(text.length).toBeLessThan(20_000);
    expect(blobFiles().every((file) => file.endsWith(".zst"))).toBe(true);
    expect(blobFiles()).toHaveLength(2);
    expect((await store.readSession(sessionId)).events).toEqual(before);
    const streamed = [];
    for await (const { event } of store.read(sessionId)) streamed.push(event);
    expect(streamed).toEqual(before);
    expect((await store.readSession(fork.sessionId)).events).toEqual(forkBefore);
    // A writer restores the plain log (with the references) and appends; reads stay the same.
    const more = drafts(uuidv7());
    await store.append(sessionId, [more.start(true), more.user("again"), more.end()]);
    expect((await store.readSession(sessionId)).events.slice(0, before.length)).toEqual(before);
    // A second compact has nothing left to move and keeps the blobs.
    await store.compact(sessionId);
    expect(blobFiles()).toHaveLength(2);
  });

  it("reclaim removes a raw blob beside its compressed form (a compact killed in between); reads stay whole", async () => {
    const output = bigOutput("both");
    const { sessionId, seq } = await sessionWithOutput(output);
    const [raw] = blobFiles();
    writeFileSync(`${raw}.zst`, compressBytes(readFileSync(raw!)));
    const blobs = store.storageKinds().find((kind) => kind.kind === "blobs")!;
    const live = new Set(await store.sessionIds());
    expect((await blobs.reclaim(live, { dryRun: false })).bytes).toBe(Buffer.byteLength(output));
    expect(blobFiles()).toEqual([`${raw}.zst`]);
    const session = await store.readSession(sessionId);
    expect(session.events.find((event) => event.seq === seq)).toMatchObject({ output });
  });

  it("a dry-run compact counts the moved payloads and writes nothing", async () => {
    const inline = createSessionStore({ home: temp.home, blobThreshold: Number.POSITIVE_INFINITY });
    const { sessionId } = await inline.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    await inline.append(sessionId, [run.start(), run.user("go"), run.call("c1")]);
    await inline.append(sessionId, [run.output("c1", 3, bigOutput("dry")), run.end()]);
    const plain = readFileSync(store.pathOf(sessionId));
    const dry = await store.compact(sessionId, { dryRun: true });
    const real = await store.compact(sessionId);
    expect(dry.after).toBe(real.after);
    expect(dry.before).toBe(plain.length);
  });

  it("a short file under a blob's name (a crash between a writer's rename and its fsync) is written again, not reused", async () => {
    const output = bigOutput("short");
    await sessionWithOutput(output);
    const [file] = blobFiles();
    truncateSync(file!, 1000);
    const { sessionId, seq } = await sessionWithOutput(output);
    expect(statSync(file!).size).toBe(Buffer.byteLength(output));
    const session = await store.readSession(sessionId);
    expect(session.events.find((event) => event.seq === seq)).toMatchObject({ output });
  });

  it("the same payload written twice is stored once", async () => {
    const output = bigOutput("same");
    await sessionWithOutput(output);
    await sessionWithOutput(output);
    expect(blobFiles()).toHaveLength(1);
  });

  it("a payload under the threshold or with a lone surrogate stays in the line", async () => {
    const small = await sessionWithOutput("short output");
    const lone = `${bigOutput("b")}\ud800`;
    const broken = await sessionWithOutput(lone);
    expect(readFileSync(store.pathOf(small.sessionId), "utf8")).not.toContain("outputBlob");
    expect(readFileSync(store.pathOf(broken.sessionId), "utf8")).not.toContain("outputBlob");
    const session = await store.readSession(broken.sessionId);
    expect(session.events.find((event) => event.seq === broken.seq)).toMatchObject({
      output: lone,
    });
  });

  it("a payload of non-Latin-1 text goes to a blob, one holding a real U+FFFD too; a lone surrogate among such text stays in the line", async () => {
    const wide = `${bigOutput("wide")} ✓ 完成 — 🎉`;
    const replaced = `${bigOutput("replaced")} \ufffd decoded from bad bytes`;
    const lone = `${bigOutput("lone")} ✓ \udc00 ✓`;
    for (const [text, inBlob] of [
      [wide, true],
      [replaced, true],
      [lone, false],
    ] as const) {
      const { sessionId, seq } = await sessionWithOutput(text);
      const line = readFileSync(store.pathOf(sessionId), "utf8");
      expect(line.includes("outputBlob"), text.slice(-24)).toBe(inBlob);
      const session = await store.readSession(sessionId);
      expect(session.events.find((event) => event.seq === seq)).toMatchObject({ output: text });
    }
  });

  it("a missing blob is BLOB_MISSING naming the session, the event's seq and its line", async () => {
    const { sessionId, seq } = await sessionWithOutput(bigOutput("c"), true);
    unlinkSync(blobFiles()[0]!);
    const error = await readError(store.readSession(sessionId));
    expect(error.code).toBe("BLOB_MISSING");
    expect(error.seq).toBe(seq);
    expect(error.line).toBe(seq + 1);
    expect(error.sessionId).toBe(sessionId);
  });

  it("a blob whose bytes no longer match its hash is BLOB_CORRUPT", async () => {
    const { sessionId, seq } = await sessionWithOutput(bigOutput("d"), true);
    // A valid zstd frame of other bytes: it decompresses, but hashes to another name.
    writeFileSync(blobFiles()[0]!, compressBytes(Buffer.from("not the output")));
    const error = await readError(store.readSession(sessionId));
    expect(error.code).toBe("BLOB_CORRUPT");
    expect(error.seq).toBe(seq);
  });

  it("the blob store's own errors are Tapedeck errors with codes: a missing blob, a name that is no sha256", () => {
    const blobs = new BlobStore(temp.home);
    const missing = "0".repeat(64);
    const caught = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return error;
      }
      throw new Error("the read succeeded");
    };
    const absent = caught(() => blobs.get(missing));
    expect(BlobReadError.isInstance(absent) && TapedeckError.isInstance(absent)).toBe(true);
    expect(absent).toMatchObject({ code: "BLOB_MISSING", hash: missing });
    const badName = caught(() => blobs.get("../../etc/passwd"));
    expect(InvalidBlobHashError.isInstance(badName) && TapedeckError.isInstance(badName)).toBe(
      true,
    );
    expect(badName).toMatchObject({ code: "INVALID_BLOB_HASH" });
  });

  it("reclaim removes a blob no log names once it is an hour old, and keeps named and young ones", async () => {
    await sessionWithOutput(bigOutput("kept"));
    const { sessionId } = await sessionWithOutput(bigOutput("dropped"));
    const [first, second] = blobFiles();
    const old = new Date(Date.now() - 2 * 3600_000);
    for (const path of [first!, second!]) utimesSync(path, old, old);
    // The second session goes for good: its blob is named by no log, not even in the trash.
    await store.delete(sessionId);
    const blobs = store.storageKinds().find((kind) => kind.kind === "blobs")!;
    const live = new Set(await store.sessionIds());
    const dry = await blobs.reclaim(live, { dryRun: true });
    expect(dry.bytes).toBe(0);
    store.emptyTrash({ dryRun: false });
    const wouldFree = await blobs.reclaim(live, { dryRun: true });
    expect(wouldFree.bytes).toBeGreaterThan(0);
    expect(blobFiles()).toHaveLength(2);
    expect(await blobs.reclaim(live, { dryRun: false })).toEqual(wouldFree);
    expect(blobFiles()).toHaveLength(1);
    await store.readSession((await store.sessionIds())[0]!);
    // A young unnamed blob (a writer between its blob and its line) is kept.
    await sessionWithOutput(bigOutput("young"));
    const young = await store.sessionIds();
    await store.delete(young.at(-1)!);
    store.emptyTrash({ dryRun: false });
    expect((await blobs.reclaim(new Set(await store.sessionIds()), { dryRun: false })).bytes).toBe(
      0,
    );
  });
});
