import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importChanged } from "./import-changed";
import { LIVE_MS } from "./opencode-storage-watch";
import { COLD_PER_LOOK, HOT_MS } from "./source-watch";
import { opencodeSample } from "./sources/test-opencode-db";
import {
  addOpencodeStorageMessages,
  storageMessageId,
  writeOpencodeStorage,
  writeStorageFile,
} from "./sources/test-opencode-storage";

/** A storage folder in the default place ($XDG_DATA_HOME/opencode/storage) and a look at it. */
function setup() {
  const root = testTempDir("tapedeck-opencode-storage-watch-");
  const storage = join(root, "data", "opencode", "storage");
  const store = createSessionStore({ home: join(root, "home") });
  const look = (now?: number) =>
    importChanged({
      store,
      stateDir: join(root, "home", "import"),
      env: { HOME: join(root, "user"), XDG_DATA_HOME: join(root, "data") },
      sources: ["opencode"],
      ...(now === undefined ? {} : { now }),
    });
  return { root, storage, store, look };
}

const sampleId = opencodeSample.info.id;

describe("importChanged of opencode's storage folder", () => {
  it("imports new sessions, then only the one that grew (appended), and nothing when nothing changed", async () => {
    const { storage, store, look } = setup();
    const first = writeOpencodeStorage(storage, { messages: 2 });
    const other = writeOpencodeStorage(storage, { sessionId: "ses_other" });
    const created = await look();
    expect(created.summaries).toHaveLength(1);
    expect(created.summaries[0]?.counts).toMatchObject({ created: 2 });
    expect(created.summaries[0]?.files.map((file) => file.path).sort()).toEqual(
      [first, other].sort(),
    );

    expect((await look()).summaries).toEqual([]);

    addOpencodeStorageMessages(storage, sampleId, 2, 3);
    const grown = await look();
    expect(grown.summaries[0]?.files.map((file) => file.path)).toEqual([first]);
    expect(grown.summaries[0]?.counts).toMatchObject({ appended: 1, created: 0, forked: 0 });
    expect((await look()).summaries).toEqual([]);

    const third = writeOpencodeStorage(storage, { sessionId: "ses_third", messages: 1 });
    const added = await look();
    expect(added.summaries[0]?.files.map((file) => file.path)).toEqual([third]);
    expect(added.summaries[0]?.counts).toMatchObject({ created: 1 });
    expect((await store.list()).length).toBe(3);
  });

  it("stats only the session files and message folders of sessions no longer live", async () => {
    const { storage, look } = setup();
    writeOpencodeStorage(storage);
    writeOpencodeStorage(storage, { sessionId: "ses_other" });
    await look();
    // Live (just written): `session/`, the project folder, then per session its file, message
    // folder and its listing, and per last message its file, part folder listing and parts.
    const parts = (index: number) => opencodeSample.messages[index]!.parts.length;
    const live = await look();
    expect(live.summaries).toEqual([]);
    expect(live.statted).toBe(2 + 2 * (3 + (2 + parts(1)) + (2 + parts(2))));
    // An hour on (hot), and two days on (cold: fewer than COLD_PER_LOOK sessions, all in the
    // slice): `session/`, the project folder, then each session's file and message folder.
    expect(COLD_PER_LOOK).toBeGreaterThanOrEqual(2);
    for (const later of [Date.now() + LIVE_MS + 1000, Date.now() + 2 * HOT_MS]) {
      const idle = await look(later);
      expect(idle.summaries).toEqual([]);
      expect(idle.statted).toBe(2 + 2 * 2);
    }
  });

  it("sees a session that grows after a long rest", async () => {
    const { storage, look } = setup();
    writeOpencodeStorage(storage, { messages: 2 });
    await look();
    const later = Date.now() + 2 * HOT_MS;
    expect((await look(later)).summaries).toEqual([]);
    // The new message's files are dated back too: only its folder's mtime (a file created in it)
    // tells of it.
    addOpencodeStorageMessages(storage, sampleId, 2, 3);
    const message = storageMessageId(sampleId, 2);
    const old = new Date(Date.now() - 3 * HOT_MS);
    utimesSync(join(storage, "message", sampleId, `${message}.json`), old, old);
    for (const part of readdirSync(join(storage, "part", message)))
      utimesSync(join(storage, "part", message, part), old, old);
    const found = await look(later + 1000);
    expect(found.summaries[0]?.counts).toMatchObject({ appended: 1, forked: 0 });
  });

  it("sees a part rewritten in place in the last message (a tool call that finished)", async () => {
    const { storage, look } = setup();
    writeOpencodeStorage(storage, { messages: 2 });
    const message = storageMessageId(sampleId, 1);
    const name = readdirSync(join(storage, "part", message)).find((part) =>
      readFileSync(join(storage, "part", message, part), "utf8").includes('"type": "tool"'),
    )!;
    const path = join(storage, "part", message, name);
    const finished = JSON.parse(readFileSync(path, "utf8")) as { state: { status: string } };
    writeFileSync(
      path,
      JSON.stringify({ ...finished, state: { ...finished.state, status: "running" } }, null, 2),
    );
    const running = await look();
    expect(running.summaries[0]?.counts).toMatchObject({ created: 1 });
    // opencode rewrites the part's file in place: its folder's mtime does not move.
    writeFileSync(path, JSON.stringify(finished, null, 2));
    const done = await look();
    expect(done.summaries[0]?.counts).toMatchObject({ appended: 1, forked: 0 });
    expect(done.summaries[0]?.newEvents).toBe(1);
  });

  it("skips and lists a damaged part file, a FIFO and a link out of the folder, and does not hang", async () => {
    const { root, storage, look } = setup();
    writeOpencodeStorage(storage, { messages: 2 });
    const message = storageMessageId(sampleId, 1);
    const parts = join(storage, "part", message);
    writeStorageFile(join(parts, "prt_zzz1.json"), "{broken");
    execFileSync("mkfifo", [join(parts, "prt_zzz2.json")]);
    writeFileSync(join(root, "secret.json"), JSON.stringify({ type: "text", text: "secret" }));
    symlinkSync(join(root, "secret.json"), join(parts, "prt_zzz3.json"));
    const found = await look();
    expect(found.summaries[0]?.counts).toMatchObject({ created: 1 });
    expect(found.summaries[0]?.files[0]?.skipped.map((skip) => [skip.path, skip.reason])).toEqual([
      [join(parts, "prt_zzz1.json"), "not JSON"],
      [join(parts, "prt_zzz2.json"), "not a regular file (not read)"],
      [join(parts, "prt_zzz3.json"), "outside the storage folder (not read)"],
    ]);
    expect((await look()).summaries).toEqual([]);
  });

  it("leaves the storage folder alone when opencode's database is there (the import reads the database)", async () => {
    const { storage, look } = setup();
    writeOpencodeStorage(storage);
    writeFileSync(join(storage, "..", "opencode.db"), "");
    const found = await look();
    // The empty file is no database: nothing is imported from it, and storage/ is not read.
    expect(found.summaries.flatMap((summary) => summary.files.map((file) => file.path))).toEqual(
      [],
    );
  });
});
