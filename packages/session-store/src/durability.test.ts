import * as fs from "node:fs";
import { uuidv7 } from "@tapedeck/session";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drafts, tempDirectory } from "../test/helpers";
import { createSessionStore } from "./index";

// Count the fsyncs the writer issues on its log descriptor (the async `fs.fsync`).
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return { ...actual, fsync: vi.fn(actual.fsync) };
});

let temp: ReturnType<typeof tempDirectory>;
beforeEach(() => {
  temp = tempDirectory();
});
afterEach(() => temp.cleanup());

const fsync = () => vi.mocked(fs.fsync);

describe("durability", () => {
  it('"turn": fsync at turn/end and at an approval request, not for other events', async () => {
    const store = createSessionStore({ home: temp.home });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    // A first writer's open makes the blob shard folders in the background (and fsyncs their
    // parents); its close waits for them, so only the log's fsyncs are counted below.
    await (await store.openWriter(sessionId)).close();
    const writer = await store.openWriter(sessionId);
    fsync().mockClear();
    await writer.append([run.start()]);
    await writer.append([run.user("q")]);
    const [call] = await writer.append([run.call("c1")]);
    expect(fsync()).toHaveBeenCalledTimes(0);
    await writer.append([run.approval("c1")]);
    expect(fsync()).toHaveBeenCalledTimes(1);
    await writer.append([run.output("c1", call!.seq, "ok"), run.assistant("a")]);
    expect(fsync()).toHaveBeenCalledTimes(1);
    await writer.append([run.end()]);
    expect(fsync()).toHaveBeenCalledTimes(2);
    await writer.sync();
    expect(fsync()).toHaveBeenCalledTimes(3);
    await writer.close();
    expect(fsync()).toHaveBeenCalledTimes(4);
  });

  it('"every-event": fsync after every append', async () => {
    const store = createSessionStore({ home: temp.home, durability: "every-event" });
    const { sessionId } = await store.create({ cwd: temp.root });
    const run = drafts(uuidv7());
    // A first writer's open makes the blob shard folders in the background (and fsyncs their
    // parents); its close waits for them, so only the log's fsyncs are counted below.
    await (await store.openWriter(sessionId)).close();
    const writer = await store.openWriter(sessionId);
    fsync().mockClear();
    await writer.append([run.start()]);
    await writer.append([run.user("q")]);
    await writer.append([run.assistant("a")]);
    expect(fsync()).toHaveBeenCalledTimes(3);
    await writer.close();
  });
});
