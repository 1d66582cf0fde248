import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { normalize } from "@tapedeck/session";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";
import { splitLines } from "./lines";
import { convertPi } from "./sources/pi";
import { writeConverted } from "./write-session";

const samples = fileURLToPath(new URL("../__fixtures__/samples", import.meta.url));

function setup(): { store: SessionStore; dir: string } {
  const root = testTempDir("tapedeck-import-");
  return { store: createSessionStore({ home: join(root, "home") }), dir: join(root, "source") };
}

const piHeader = {
  type: "session",
  version: 3,
  id: "aaaaaaaa-0000-4000-8000-000000000001",
  timestamp: "2025-12-24T00:00:00.000Z",
  cwd: "/tmp",
};
const piUser = (id: string, parentId: string | null, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-12-24T00:01:00.000Z",
  message: { role: "user", content: text },
});
const piAssistant = (id: string, parentId: string, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-12-24T00:02:00.000Z",
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    provider: "p",
    model: "m",
    stopReason: "stop",
  },
});
/** A zstd frame of raw (stored) blocks: what `zstd` writes for incompressible data. */
function zstdStored(data: Uint8Array): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt32LE(0xfd2fb528, 0);
  header[4] = 0xa0; // single segment, 4-byte content size
  header.writeUInt32LE(data.length, 5);
  const parts = [header];
  const max = 128 * 1024;
  for (let start = 0; start < data.length || start === 0; start += max) {
    const block = data.subarray(start, start + max);
    const last = start + max >= data.length ? 1 : 0;
    const value = (block.length << 3) | last; // block type 0: raw
    parts.push(
      Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff]),
      Buffer.from(block),
    );
    if (last === 1) break;
  }
  return Buffer.concat(parts);
}
const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");

describe("importSessions", () => {
  it("imports every sample, each log replays, and a second import changes nothing", async () => {
    const { store } = setup();
    for (const source of ["claude-code", "codex", "pi", "opencode"] as const) {
      const first = await importSessions({ store, source, paths: [join(samples, source)] });
      expect(first.counts.created, source).toBe(1);
      expect(first.skipped, source).toBe(0);
      for (const file of first.files) {
        for (const outcome of file.sessions) {
          const header = await store.readHeader(outcome.sessionId);
          expect(header).toMatchObject({ origin: { tool: source, path: file.path } });
          await store.readSession(outcome.sessionId);
        }
      }
      const again = await importSessions({ store, source, paths: [join(samples, source)] });
      expect(again.counts, source).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 1 });
      expect(again.newEvents).toBe(0);
    }
  });

  it("keeps the source's timestamps and ids", async () => {
    const { store } = setup();
    const summary = await importSessions({ store, source: "pi", paths: [join(samples, "pi")] });
    const session = await store.readSession(summary.files[0]!.sessions[0]!.sessionId);
    expect(session.header.createdAt).toBe("2025-12-24T00:32:27.967Z");
    expect(session.events[1]?.ts).toBe("2025-12-24T00:32:29.373Z");
    expect(session.events.find((event) => event.type === "function_call")).toMatchObject({
      callId: "toolu_014CTWreQeKBDxBSHXdfkYo3",
    });
  });

  it("appends only the new events when the source grew", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "s.jsonl");
    writeFileSync(
      file,
      jsonl([piHeader, piUser("a1", null, "one"), piAssistant("a2", "a1", "first")]),
    );
    const first = await importSessions({ store, source: "pi", paths: [dir] });
    appendFileSync(file, jsonl([piUser("a3", "a2", "two"), piAssistant("a4", "a3", "second")]));
    const second = await importSessions({ store, source: "pi", paths: [dir] });
    expect(second.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 0 });
    expect(second.files[0]?.sessions[0]?.sessionId).toBe(first.files[0]?.sessions[0]?.sessionId);
    expect(second.newEvents).toBe(4);
  });

  it("appends to a session an earlier version imported with its turn's model taken from the reply", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "s.jsonl");
    writeFileSync(
      file,
      jsonl([piHeader, piUser("a1", null, "one"), piAssistant("a2", "a1", "first")]),
    );
    // What imports before 2 Dec 2026 wrote: the open turn's turn/start changed to the reply's model.
    const [converted] = convertPi({
      path: file,
      lines: splitLines(readFileSync(file), { path: file }).lines,
    }).sessions;
    const events = converted!.events.map((event) =>
      event.type === "turn/start" ? { ...event, model: "p:m" } : event,
    );
    await writeConverted(store, { ...converted!, events });
    appendFileSync(file, jsonl([piUser("a3", "a2", "two")]));
    const grown = await importSessions({ store, source: "pi", paths: [dir] });
    expect(grown.counts).toEqual({ created: 0, appended: 1, forked: 0, unchanged: 0 });
    expect((await store.list()).length).toBe(1);
  });

  it("imports a rewritten source as a fork at the turn where it diverged, leaving the first import as it was", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "s.jsonl");
    const common = [piHeader, piUser("a1", null, "one"), piAssistant("a2", "a1", "first")];
    writeFileSync(
      file,
      jsonl([...common, piUser("a3", "a2", "two"), piAssistant("a4", "a3", "second")]),
    );
    const first = await importSessions({ store, source: "pi", paths: [dir] });
    const originalId = first.files[0]!.sessions[0]!.sessionId;
    const before = readFileSync(store.pathOf(originalId), "utf8");
    writeFileSync(
      file,
      jsonl([...common, piUser("a3", "a2", "two, edited"), piAssistant("a4", "a3", "other")]),
    );
    const second = await importSessions({ store, source: "pi", paths: [dir] });
    const outcome = second.files[0]!.sessions[0]!;
    expect(outcome).toMatchObject({
      action: "forked",
      forkedFrom: { sessionId: originalId, seq: 4 },
    });
    expect(readFileSync(store.pathOf(originalId), "utf8")).toBe(before);
    const fork = await store.readSession(outcome.sessionId);
    expect(fork.header.parent).toEqual({ sessionId: originalId, seq: 4 });
    expect(
      fork.events.map((event) => ("content" in event ? event.content : undefined)).filter(Boolean),
    ).toEqual(["one", "first", "two, edited", "other"]);
    const third = await importSessions({ store, source: "pi", paths: [dir] });
    expect(third.counts.unchanged).toBe(1);
    expect(third.files[0]?.sessions[0]?.sessionId).toBe(outcome.sessionId);
  });

  it("leaves a session continued here alone until its source grows, then forks where they part", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "s.jsonl");
    writeFileSync(
      file,
      jsonl([
        piHeader,
        piUser("a1", null, "one"),
        piAssistant("a2", "a1", "first"),
        piUser("b1", "a2", "two"),
        piAssistant("b2", "b1", "second"),
      ]),
    );
    const first = await importSessions({ store, source: "pi", paths: [dir] });
    const sessionId = first.files[0]!.sessions[0]!.sessionId;
    const runId = "continued-here";
    // A run that continues it first repairs the open last turn, as it repairs any.
    await store.append(sessionId, normalize(await store.readSession(sessionId)));
    await store.append(sessionId, [
      { type: "turn/start", runId, policy: { approval: "ask" }, model: "openai:m", resumed: true },
      { type: "message", runId, role: "user", content: "asked in tapedeck" },
      { type: "turn/end", runId, status: "completed" },
    ]);
    const again = await importSessions({ store, source: "pi", paths: [dir] });
    expect(again.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 1 });
    appendFileSync(file, jsonl([piUser("a3", "b2", "asked in pi")]));
    const grown = await importSessions({ store, source: "pi", paths: [dir] });
    expect(grown.files[0]?.sessions[0]).toMatchObject({
      action: "forked",
      // The run here closed the second turn `interrupted`, the source's next prompt `completed`:
      // they part inside it, so the fork starts at the turn boundary before it.
      forkedFrom: { sessionId, seq: 4 },
      // The second turn (now closed) and the new prompt's, open until the source answers it.
      newEvents: 6,
    });
  });

  it("appends what a source still being written adds to its last turn, instead of forking", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "s.jsonl");
    const call = {
      type: "message",
      id: "a2",
      parentId: "a1",
      timestamp: "2025-12-24T00:01:30.000Z",
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "ls" } }],
        provider: "p",
        model: "m",
        stopReason: "toolUse",
      },
    };
    // Imported while pi runs the tool: the call has no result yet.
    writeFileSync(file, jsonl([piHeader, piUser("a1", null, "list"), call]));
    const first = await importSessions({ store, source: "pi", paths: [dir] });
    const sessionId = first.files[0]!.sessions[0]!.sessionId;
    expect((await store.readSession(sessionId)).events.map((event) => event.type)).toEqual([
      "turn/start",
      "message",
      "function_call",
    ]);
    const result = {
      type: "message",
      id: "a3",
      parentId: "a2",
      timestamp: "2025-12-24T00:01:40.000Z",
      message: { role: "toolResult", toolCallId: "t1", toolName: "bash", content: "a.txt" },
    };
    appendFileSync(file, jsonl([result]));
    const second = await importSessions({ store, source: "pi", paths: [dir] });
    expect(second.files[0]?.sessions[0]).toMatchObject({ action: "appended", newEvents: 1 });
    appendFileSync(file, jsonl([piAssistant("a4", "a3", "one file")]));
    const third = await importSessions({ store, source: "pi", paths: [dir] });
    expect(third.files[0]?.sessions[0]).toMatchObject({ action: "appended", newEvents: 1 });
    expect((await store.readSession(sessionId)).events.map((event) => event.type)).toEqual([
      "turn/start",
      "message",
      "function_call",
      "function_call_output",
      "message",
    ]);
    expect((await store.list()).length).toBe(1);
  });

  it("writes pi branches as forks by reference of the main session", async () => {
    const { store, dir } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "s.jsonl"),
      jsonl([
        piHeader,
        piUser("a1", null, "one"),
        piAssistant("a2", "a1", "first"),
        piUser("b1", "a2", "branch"),
        piAssistant("b2", "b1", "branch answer"),
        piUser("c1", "a2", "main"),
        piAssistant("c2", "c1", "main answer"),
      ]),
    );
    const summary = await importSessions({ store, source: "pi", paths: [dir] });
    const [main, branch] = summary.files[0]!.sessions;
    expect(branch).toMatchObject({
      forkedFrom: { sessionId: main!.sessionId, seq: 4 },
      newEvents: 3,
    });
    const header = await store.readHeader(branch!.sessionId);
    expect(header.parent).toEqual({ sessionId: main!.sessionId, seq: 4 });
    expect((await store.readSession(branch!.sessionId)).events).toHaveLength(7);
  });

  it("writes the conversation a Claude Code edited message starts as a fork by reference of the one it replaces", async () => {
    const { store, dir } = setup();
    const project = join(dir, "-work");
    mkdirSync(project, { recursive: true });
    const id = "cccccccc-0000-4000-8000-000000000001";
    const line = (uuid: string, parentUuid: string | null, role: string, text: string) => ({
      type: role,
      uuid,
      parentUuid,
      sessionId: id,
      cwd: "/tmp",
      isSidechain: false,
      timestamp: `2026-01-01T00:00:0${uuid.length}.000Z`,
      message:
        role === "user"
          ? { role, content: text }
          : { role, model: "claude-sonnet-4-5", content: [{ type: "text", text }] },
    });
    writeFileSync(
      join(project, `${id}.jsonl`),
      jsonl([
        line("u1", null, "user", "one"),
        line("a1", "u1", "assistant", "first"),
        line("u2", "a1", "user", "original"),
        line("a2", "u2", "assistant", "original answer"),
        line("u3", "a1", "user", "edited"),
        line("a3", "u3", "assistant", "edited answer"),
      ]),
    );
    const summary = await importSessions({ store, source: "claude-code", paths: [dir] });
    expect(summary.counts).toEqual({ created: 2, appended: 0, forked: 0, unchanged: 0 });
    const [main, branch] = summary.files[0]!.sessions;
    expect(main).toMatchObject({ key: { sessionId: id }, newEvents: 7 });
    expect(branch).toMatchObject({
      key: { sessionId: `${id}#u3` },
      forkedFrom: { sessionId: main!.sessionId, seq: 4 },
      newEvents: 3,
    });
    expect((await store.readHeader(branch!.sessionId)).parent).toEqual({
      sessionId: main!.sessionId,
      seq: 4,
    });
    const replayed = await store.readSession(branch!.sessionId);
    expect(replayed.events.flatMap((event) => ("content" in event ? [event.content] : []))).toEqual(
      ["one", "first", "edited", "edited answer"],
    );
    const again = await importSessions({ store, source: "claude-code", paths: [dir] });
    expect(again.counts).toEqual({ created: 0, appended: 0, forked: 0, unchanged: 2 });
  });

  it("is safe when two imports of the same folder run at once", async () => {
    const { store } = setup();
    const paths = [join(samples, "pi")];
    const [a, b] = await Promise.all([
      importSessions({ store, source: "pi", paths }),
      importSessions({ store, source: "pi", paths }),
    ]);
    expect(a.counts.created + b.counts.created).toBe(1);
    expect(a.counts.unchanged + b.counts.unchanged).toBe(1);
    expect((await store.list()).length).toBe(1);
  });

  it("reads Codex .jsonl.zst rollouts", async () => {
    const { store, dir } = setup();
    const target = join(dir, "2025", "12", "28");
    mkdirSync(target, { recursive: true });
    const source = join(
      samples,
      "codex",
      "2025",
      "12",
      "28",
      "rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
    );
    writeFileSync(join(target, "rollout-x.jsonl.zst"), zstdStored(readFileSync(source)));
    const summary = await importSessions({ store, source: "codex", paths: [dir] });
    expect(summary.counts.created).toBe(1);
    expect(summary.files[0]?.sessions[0]?.key.sessionId).toBe(
      "019b64e5-57fa-7463-b644-fba7e456f905",
    );
  });

  it("reports damage per file and line, imports the rest, and says when nothing could be read", async () => {
    const { store, dir } = setup();
    cpSync(join(samples, "claude-code"), dir, { recursive: true });
    const file = join(
      dir,
      "-home-marco-projects-spotter",
      "55604662-cf2a-4331-851a-ec234028f8ca.jsonl",
    );
    appendFileSync(file, 'garbage\n{"type":"user","message":{"role":"us');
    const summary = await importSessions({ store, source: "claude-code", paths: [dir] });
    expect(summary.nothingRead).toBe(false);
    expect(summary.files[0]?.skipped.map((skip) => [skip.line, skip.reason])).toEqual([
      [16, "not JSON"],
      [17, "truncated last line"],
    ]);
    expect(summary.counts.created).toBe(1);

    const wrong = await importSessions({
      store,
      source: "codex",
      paths: [join(samples, "opencode")],
    });
    expect(wrong.nothingRead).toBe(true);
    const missing = await importSessions({ store, source: "pi", paths: [join(dir, "nope")] });
    expect(missing.files[0]?.error).toBe("no such file or directory");
    expect(missing.nothingRead).toBe(true);
  });

  it("refuses another tool's file as not the claimed format, importing nothing from it", async () => {
    const { store } = setup();
    const files: Record<string, string> = {
      "claude-code": join(
        samples,
        "claude-code",
        "-home-marco-projects-spotter",
        "55604662-cf2a-4331-851a-ec234028f8ca.jsonl",
      ),
      codex: join(
        samples,
        "codex",
        "2025",
        "12",
        "28",
        "rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl",
      ),
      pi: join(
        samples,
        "pi",
        "--Users-badlogic-workspaces-pi-mono--",
        "2025-12-24T00-32-27-967Z_2638daee-0588-4baa-bd33-68b4c002818e.jsonl",
      ),
      opencode: join(samples, "opencode", "ses_18684d584ffe1JuGPUt8v6Igr8.json"),
    };
    for (const source of ["claude-code", "codex", "pi", "opencode", "tapedeck"] as const) {
      for (const [owner, file] of Object.entries(files)) {
        if (owner === source) continue;
        const summary = await importSessions({ store, source, paths: [file] });
        expect(summary.nothingRead, `${owner} file as ${source}`).toBe(true);
        expect(summary.counts.created, `${owner} file as ${source}`).toBe(0);
      }
    }
    expect(await store.list()).toEqual([]);
  });

  it("dry run reports what would happen and writes nothing", async () => {
    const { store } = setup();
    const summary = await importSessions({
      store,
      source: "pi",
      paths: [join(samples, "pi")],
      dryRun: true,
    });
    expect(summary.counts.created).toBe(1);
    expect(summary.newEvents).toBeGreaterThan(0);
    expect(await store.list()).toEqual([]);
  });
});
