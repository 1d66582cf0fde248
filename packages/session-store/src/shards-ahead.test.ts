import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { BlobStore, sha256Hex } from "./blob-store";
import { createSessionStore } from "./index";

let temp: ReturnType<typeof tempDirectory>;

beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => temp.cleanup());

const shardsOf = (home: string) => readdirSync(join(home, "blobs", "sha256")).sort();

describe("shard folders made ahead (a writer's open)", () => {
  it("a writer's open makes all 256; a home without blobs (threshold off) gets none", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const { sessionId } = await store.create({ cwd: temp.root });
    const writer = await store.openWriter(sessionId);
    // Made in the background; a writer's close waits for them.
    await writer.close();
    expect(shardsOf(temp.home)).toHaveLength(256);
    expect(shardsOf(temp.home)[0]).toBe("00");
    expect(shardsOf(temp.home)[255]).toBe("ff");

    const inlineHome = join(temp.root, "inline-home");
    const inline = createSessionStore({
      home: inlineHome,
      blobThreshold: Number.POSITIVE_INFINITY,
    });
    const other = await inline.create({ cwd: temp.root });
    await (await inline.openWriter(other.sessionId)).close();
    expect(readdirSync(inlineHome)).not.toContain("blobs");
  });

  it("a process killed part way (some shard folders made, none holding a blob) leaves a home every command reads; the next writer completes them", async () => {
    const store = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const run = drafts(uuidv7());
    const { sessionId } = await store.create({ cwd: temp.root });
    await store.append(sessionId, [run.start(), run.user("small"), run.end()]);
    // What a kill -9 between two of the 256 mkdirs leaves (each mkdir is whole or absent).
    for (let index = 0; index < 100; index += 1) {
      mkdirSync(join(temp.home, "blobs", "sha256", index.toString(16).padStart(2, "0")), {
        recursive: true,
      });
    }
    // A new process (store): the empty folders are no blobs, no temps, nothing to reclaim.
    const next = createSessionStore({ home: temp.home, blobThreshold: 1000 });
    const blobs = next.storageKinds().find((kind) => kind.kind === "blobs")!;
    expect(await blobs.usage()).toEqual({ bytes: 0, files: 0 });
    const live = new Set(await next.sessionIds());
    expect(await blobs.reclaim(live, { dryRun: false })).toEqual({ bytes: 0 });
    expect((await next.readSession(sessionId)).events).toHaveLength(3);
    // Its writer completes the folders and stores a blob in one of them.
    const writer = await next.openWriter(sessionId);
    const more = drafts(uuidv7());
    const output = "a large output line\n".repeat(500);
    await writer.append([more.start(true), more.user(output), more.end()]);
    await writer.close();
    expect(shardsOf(temp.home)).toHaveLength(256);
    expect(await blobs.usage()).toMatchObject({ files: 1 });
    const events = (await createSessionStore({ home: temp.home }).readSession(sessionId)).events;
    expect(events.at(-2)).toMatchObject({ content: output });
  });

  it("a blob written while they are being made fsyncs its shard's parents up to the home (a folder it finds may be one made ahead, not yet fsynced); once made, only its own folder", async () => {
    // A home whose shard root is there (another writer's), the shard folders not yet.
    mkdirSync(join(temp.home, "blobs", "sha256"), { recursive: true });
    const blobs = new BlobStore(temp.home);
    const making = blobs.makeShardsAhead();
    const data = Buffer.from("a blob written early");
    const hash = sha256Hex(data);
    const early = blobs.writeAll(new Map([[hash, data]]));
    const shard = join(temp.home, "blobs", "sha256", hash.slice(0, 2));
    expect([...early.folders].sort()).toEqual(
      [temp.home, join(temp.home, "blobs"), join(temp.home, "blobs", "sha256"), shard].sort(),
    );
    await blobs.syncAll(early);
    await making;
    const later = Buffer.from("a blob written later");
    const laterHash = sha256Hex(later);
    const syncs = blobs.writeAll(new Map([[laterHash, later]]));
    expect([...syncs.folders]).toEqual([join(temp.home, "blobs", "sha256", laterHash.slice(0, 2))]);
    await blobs.syncAll(syncs);
    expect(blobs.get(hash)).toEqual(data);
    expect(blobs.get(laterHash)).toEqual(later);
  });
});
