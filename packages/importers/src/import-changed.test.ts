import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it, vi } from "vitest";
import { importChanged } from "./import-changed";
import { COLD_PER_LOOK, HOT_MS } from "./source-watch";
import {
  addOpencodeMessages,
  opencodeSample,
  writeOpencodeDatabase,
} from "./sources/test-opencode-db";

const samples = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));
const gemini = fileURLToPath(new URL("../__fixtures__/made/gemini", import.meta.url));

function setup() {
  const root = testTempDir("tapedeck-import-changed-");
  const claude = join(root, "user", ".claude", "projects");
  cpSync(join(samples, "claude-code"), claude, { recursive: true });
  const project = join(claude, "-home-marco-projects-spotter");
  const file = join(project, readdirSync(project)[0]!);
  const store = createSessionStore({ home: join(root, "home") });
  const look = (now?: number) =>
    importChanged({
      store,
      stateDir: join(root, "home", "import"),
      env: { HOME: join(root, "user") },
      ...(now === undefined ? {} : { now }),
    });
  return { root, claude, file, store, look };
}

describe("importChanged", () => {
  it("imports new and grown source files only, and nothing when nothing changed", async () => {
    const { claude, file, store, look } = setup();
    const whole = readFileSync(file, "utf8").split(/(?<=\n)/u);
    writeFileSync(file, whole.slice(0, 7).join(""));
    const first = await look();
    expect(first.summaries.map((summary) => summary.counts.created)).toEqual([1]);

    const idle = await look();
    expect(idle.summaries).toEqual([]);
    // The project folder and the one file, no more: nothing read.
    expect(idle.statted).toBe(1);

    writeFileSync(file, whole.join(""));
    const grown = await look();
    expect(grown.summaries[0]?.counts).toMatchObject({ appended: 1, created: 0, forked: 0 });

    const other = join(claude, "-other");
    cpSync(join(claude, "-home-marco-projects-spotter"), other, { recursive: true });
    const renamed = join(other, "aaaaaaaa-0000-4000-8000-000000000001.jsonl");
    writeFileSync(
      renamed,
      readFileSync(join(other, readdirSync(other)[0]!), "utf8").replaceAll(
        "55604662-cf2a-4331-851a-ec234028f8ca",
        "aaaaaaaa-0000-4000-8000-000000000001",
      ),
    );
    const added = await look();
    // The copy under its old name is the same source session (unchanged), the renamed one new.
    expect(added.summaries[0]?.counts).toMatchObject({ created: 1, forked: 0 });
    expect((await store.list()).length).toBe(2);
  });

  it("sees a session that grows after a long rest within a few looks", async () => {
    const { file, look } = setup();
    const day = Date.parse("2026-12-01T00:00:00.000Z");
    await look(day);
    // Last written two days ago: cold, statted a slice per look.
    const old = new Date(day - 2 * HOT_MS);
    utimesSync(file, old, old);
    await look(day);
    appendFileSync(file, "");
    const line = readFileSync(file, "utf8").split("\n").at(-2)!;
    appendFileSync(file, `${line.replace(/"uuid":"[^"]+"/u, '"uuid":"grown-1"')}\n`);
    utimesSync(file, old, old);
    const found = await look(day + 1000);
    expect(COLD_PER_LOOK).toBeGreaterThan(0);
    expect(found.summaries[0]?.counts.appended).toBe(1);
  });
});

describe("importChanged of opencode's database", () => {
  it("reads the database only when its files moved, and imports only the sessions that changed", async () => {
    const root = testTempDir("tapedeck-import-changed-opencode-");
    const data = join(root, "data", "opencode");
    const database = writeOpencodeDatabase(data, { messages: 2, secondSessionId: "ses_other" });
    const store = createSessionStore({ home: join(root, "home") });
    const look = () =>
      importChanged({
        store,
        stateDir: join(root, "home", "import"),
        env: { HOME: join(root, "user"), XDG_DATA_HOME: join(root, "data") },
        sources: ["opencode"],
      });
    const first = await look();
    expect(first.summaries[0]?.counts).toMatchObject({ created: 2 });

    const idle = await look();
    expect(idle.summaries).toEqual([]);
    expect(idle.statted).toBe(2); // opencode.db and its -wal

    addOpencodeMessages(database, opencodeSample.info.id, 2, 3);
    const grown = await look();
    expect(grown.summaries).toHaveLength(1);
    // The other session did not change: not read again.
    expect(grown.summaries[0]?.files.map((file) => file.path)).toEqual([
      `${database}#${opencodeSample.info.id}`,
    ]);
    expect(grown.summaries[0]?.counts).toMatchObject({ appended: 1, created: 0, forked: 0 });
    expect((await store.list()).length).toBe(2);
    expect((await look()).summaries).toEqual([]);
  });
});

describe("importChanged of Gemini CLI chats", () => {
  it("imports a saved chat, then what it grew by", async () => {
    const root = testTempDir("tapedeck-import-changed-gemini-");
    const chats = join(root, "user", ".gemini", "tmp", "abc123", "chats");
    mkdirSync(chats, { recursive: true });
    const sample = join(gemini, "3f9a1c", "chats", "session-2025-11-20T09-00-b2c4d6e8.json");
    const chat = JSON.parse(readFileSync(sample, "utf8")) as { messages: unknown[] };
    const file = join(chats, "session-2026-12-01T10-00-abcdef12.json");
    const cut = chat.messages.findIndex((_, index) => index > 0 && isUser(chat.messages[index]));
    writeFileSync(file, JSON.stringify({ ...chat, messages: chat.messages.slice(0, cut) }));
    const store = createSessionStore({ home: join(root, "home") });
    const look = () =>
      importChanged({
        store,
        stateDir: join(root, "home", "import"),
        env: { HOME: join(root, "user") },
        sources: ["gemini"],
      });
    expect((await look()).summaries[0]?.counts).toMatchObject({ created: 1 });
    expect((await look()).summaries).toEqual([]);
    writeFileSync(file, JSON.stringify(chat));
    expect((await look()).summaries[0]?.counts).toMatchObject({ appended: 1, forked: 0 });
  });
});

function isUser(message: unknown): boolean {
  return (message as { type?: string }).type === "user";
}

describe("importChanged's state between looks", () => {
  it("reuses the state it parsed while the file is unchanged, and reads it again once another process wrote it", async () => {
    const { root, look } = setup();
    expect((await look()).summaries[0]?.counts.created).toBe(1);
    expect((await look()).summaries).toEqual([]);
    // A look with nothing changed parses nothing: not even the state it saved last time.
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect((await look()).summaries).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // A state an earlier version wrote (version 1: every path in full) is read as it was.
    const statePath1 = join(root, "home", "import", "claude-code.json");
    const saved = JSON.parse(readFileSync(statePath1, "utf8")) as {
      version: number;
      folders: Record<string, [number | null, Record<string, [number, number, number]>]>;
    };
    expect(saved.version).toBe(2);
    const v1 = {
      version: 1,
      dirs: {} as Record<string, number>,
      files: {} as Record<string, unknown>,
    };
    for (const [folder, [mtime, files]] of Object.entries(saved.folders)) {
      if (mtime !== null) v1.dirs[folder] = mtime;
      for (const [name, [size, mtimeMs, ino]] of Object.entries(files)) {
        v1.files[join(folder, name)] = { size, mtimeMs, ino };
      }
    }
    writeFileSync(statePath1, JSON.stringify(v1));
    expect((await look()).summaries).toEqual([]);
    // Another process (the viewer next to this command) starts the state afresh.
    const statePath = join(root, "home", "import", "claude-code.json");
    writeFileSync(statePath, JSON.stringify({ version: 1, dirs: {}, files: {} }));
    const again = await look();
    expect(again.summaries[0]?.counts).toMatchObject({ created: 0, unchanged: 1 });
    expect((await look()).summaries).toEqual([]);
  });
});
