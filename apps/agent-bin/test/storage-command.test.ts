import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { agentScript, cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { formatBytes } from "../src/cli/storage-command";

/** 150 kB of varied text: over the 64 KiB blob threshold, and compressible. */
const bigText = Array.from(
  { length: 6000 },
  (_, index) => `row ${index}: ${(index * 7919).toString(36)} value=${index % 97}`,
).join("\n");

/**
 * Two turns: write big.txt (150 kB of call arguments: the agent caps a tool's output at 32,000
 * characters, so its large payloads are arguments and imported outputs), then a second question.
 */
function readBigScript() {
  return agentScript()
    .user("read it")
    .toolCall("write_file", { path: "big.txt", content: bigText })
    .toolResult(`Wrote ${bigText.length} bytes to big.txt.`)
    .text("Read.")
    .end()
    .user("again")
    .text("Again.")
    .end()
    .build();
}

/** Each log of the home as the store keeps it: `<id>.jsonl`, or `<id>.jsonl.zst` compressed. */
async function sessionFiles(home: string): Promise<string[]> {
  const { logs } = await createSessionStore({ home }).scan();
  return logs.map((log) => `${log.sessionId}.jsonl${log.compressed === true ? ".zst" : ""}`);
}

function blobFiles(home: string): string[] {
  const root = path.join(home, "blobs", "sha256");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((prefix) =>
    readdirSync(path.join(root, prefix)).map((name) => path.join(root, prefix, name)),
  );
}

/**
 * After `compact`: every session verifies, the session exports to the bytes it exported before,
 * and `run -c again` resumes it with the model input the script expects (strict replay).
 */
async function expectSameAfterCompact(
  { cli, server, workspace }: Awaited<ReturnType<typeof cliContext>>,
  sessionId: string,
  exportedBefore: string,
): Promise<void> {
  expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
  const exportedAfter = path.join(workspace.root, "after.jsonl");
  expect((await cli(["sessions", "export", sessionId, "-o", exportedAfter])).code).toBe(0);
  expect(readFileSync(exportedAfter, "utf8")).toBe(readFileSync(exportedBefore, "utf8"));
  const resumed = await cli(["run", "-c", "again"]);
  expect(resumed).toMatchObject({ code: 0, stdout: "Again.\n" });
  expect(server?.failures()).toEqual([]);
  server?.assertAllConsumed();
}

describe("tapedeck storage", () => {
  it("a compacted session (blob + compressed log) shows, searches, exports, verifies, and resumes with byte-identical model input (strict replay)", async () => {
    const { cli, server, workspace } = await cliContext(readBigScript());
    const first = await cli(["run", "--approve", "read it"]);
    expect(first).toMatchObject({ code: 0, stdout: "Read.\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    const logPath = path.join(workspace.home, "sessions", `${sessionId}.jsonl`);
    // The complete call's arguments went to a blob: its line holds a reference, not 150 kB (the
    // streamed chunks before it stay, one event each, for token-exact replay).
    const callLine = readFileSync(logPath, "utf8")
      .split("\n")
      .find((line) => line.includes('"type":"function_call"'));
    expect(callLine).toContain('"argumentsBlob":');
    expect(callLine?.length).toBeLessThan(5000);
    expect(blobFiles(workspace.home)).toHaveLength(1);
    const exportedBefore = path.join(workspace.root, "before.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedBefore])).code).toBe(0);

    const report = await cli(["storage"]);
    expect(report.stdout).toMatch(/^plain logs +\S+ \S+ +1 files$/m);
    expect(report.stdout).toMatch(/^blobs +\S+ \S+ +1 files$/m);
    const compacted = await cli(["storage", "compact", "--older-than", "0s"]);
    expect(compacted).toMatchObject({ code: 0 });
    expect(compacted.stdout).toMatch(/^Compressed 1 session and reclaimed 0 B: /);
    expect(await sessionFiles(workspace.home)).toEqual([`${sessionId}.jsonl.zst`]);
    expect((await cli(["storage"])).stdout).toMatch(/^compressed logs +\S+ \S+ +1 files$/m);
    const cold = statSync(path.join(workspace.home, "sessions", `${sessionId}.jsonl.zst`));
    const coldSize = Number(createSessionStore({ home: workspace.home }).entry(sessionId)?.size);

    expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
    const search = await cli(["sessions", "search", "--all", "value=96"]);
    expect(search.stdout).toContain(sessionId);
    // A word of the last row, 150 kB in: the snippet shows it, not the line's 2,000-character
    // preview; twice, the second on the fresh index (whose bundle hands the blob to the host).
    const last = (5999 * 7919).toString(36);
    for (let round = 0; round < 2; round += 1) {
      const deep = await cli(["sessions", "search", "--all", last]);
      expect(deep.stdout).toContain(sessionId);
      expect(deep.stdout).toContain(`row 5999: [${last}]`);
    }
    expect((await cli(["sessions", "show", sessionId])).stdout).toContain("write_file");
    const exportedAfter = path.join(workspace.root, "after.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedAfter])).code).toBe(0);
    const exported = readFileSync(exportedAfter, "utf8");
    expect(exported).toBe(readFileSync(exportedBefore, "utf8"));
    expect(exported).toContain(
      JSON.stringify(JSON.stringify({ path: "big.txt", content: bigText })),
    );
    expect(exported).not.toContain("argumentsBlob");

    // The replay server matches requests strictly: the resumed run sends the 150 kB arguments
    // exactly as the model wrote them.
    const resumed = await cli(["run", "-c", "again"]);
    expect(resumed).toMatchObject({ code: 0, stdout: "Again.\n" });
    expect(server?.failures()).toEqual([]);
    server?.assertAllConsumed();
    // The writer appended to a plain segment beside the .zst, which it left as it was.
    expect(await sessionFiles(workspace.home)).toEqual([`${sessionId}.jsonl.zst`]);
    const sessions = path.join(workspace.home, "sessions");
    const coldPath = path.join(sessions, `${sessionId}.jsonl.zst`);
    expect(statSync(coldPath)).toMatchObject({ ino: cold.ino, mtimeMs: cold.mtimeMs });
    const segmentPath = path.join(sessions, `${sessionId}.jsonl.zst.${coldSize}.seg`);
    expect(statSync(segmentPath).size).toBeGreaterThan(0);
    expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
    expect((await cli(["sessions", "show", sessionId])).stdout).toContain("Again.");
    expect((await cli(["sessions", "search", "--all", "again"])).stdout).toContain(sessionId);
    const exportedResumed = path.join(workspace.root, "resumed.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedResumed])).code).toBe(0);
    const resumedLines = readFileSync(exportedResumed, "utf8");
    expect(resumedLines.startsWith(exported)).toBe(true);
    expect(resumedLines).toContain("Again.");
    // compact folds the segment into a new .zst: the same events, one file again.
    expect((await cli(["storage", "compact", "--older-than", "0s"])).stdout).toMatch(
      /^Compressed 1 session/,
    );
    expect(existsSync(segmentPath)).toBe(false);
    expect(await sessionFiles(workspace.home)).toEqual([`${sessionId}.jsonl.zst`]);
    expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
    const exportedFolded = path.join(workspace.root, "folded.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedFolded])).code).toBe(0);
    expect(readFileSync(exportedFolded, "utf8")).toBe(resumedLines);
  });

  it("compact moves a payload written inline (blobs off) to a blob; verify passes and the resumed run's model input is byte-identical (strict replay)", async () => {
    const context = await cliContext(readBigScript(), {
      env: { extra: { TAPEDECK_BLOB_THRESHOLD: "off" } },
    });
    const { cli, workspace, env } = context;
    const first = await cli(["run", "--approve", "read it"]);
    expect(first).toMatchObject({ code: 0, stdout: "Read.\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    const logPath = path.join(workspace.home, "sessions", `${sessionId}.jsonl`);
    const plainBytes = readFileSync(logPath).length;
    expect(readFileSync(logPath, "utf8")).not.toContain('"argumentsBlob":');
    expect(blobFiles(workspace.home)).toEqual([]);
    const exportedBefore = path.join(workspace.root, "before.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedBefore])).code).toBe(0);

    // The default threshold again: compact moves the 150 kB arguments to a blob.
    delete env.TAPEDECK_BLOB_THRESHOLD;
    expect((await cli(["storage", "compact", "--older-than", "0s"])).code).toBe(0);
    expect(blobFiles(workspace.home)).toHaveLength(1);
    expect(blobFiles(workspace.home)[0]).toMatch(/\.zst$/);
    const store = createSessionStore({ home: workspace.home });
    const size = Number(store.entry(sessionId)?.size ?? 0);
    // The arguments' 150 kB left the log (the streamed chunks before the call stay, one event each).
    expect(size).toBeLessThan(plainBytes - 140_000);
    const callLine = store
      .openLogReader(sessionId)
      ?.readAt(0, size)
      ?.toString("utf8")
      .split("\n")
      .find((line) => line.includes('"type":"function_call"'));
    expect(callLine).toContain('"argumentsBlob":');
    // compact kept the tail of the rewritten bytes (what the resume continues), not the old ones.
    const tailPath = path.join(workspace.home, "tails", `${sessionId}.json`);
    expect(JSON.parse(readFileSync(tailPath, "utf8")).size).toBe(size);
    await expectSameAfterCompact(context, sessionId, exportedBefore);
    expect(await cli(["sessions", "verify", sessionId])).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(tailPath, "utf8")).size).toBe(store.entry(sessionId)?.size);
  });

  it("a second write that edits a few lines of the first is stored as a delta by compact; export, verify and the resumed run's model input (strict replay) see the exact bytes", async () => {
    const edited = bigText
      .replace("row 100: ", "row 100 (edited): ")
      .replace("row 4000: ", "row 4000 (edited): ");
    const script = agentScript()
      .user("write twice")
      .toolCall("write_file", { path: "big.txt", content: bigText })
      .toolResult(`Wrote ${bigText.length} bytes to big.txt.`)
      .toolCall("write_file", { path: "big.txt", content: edited })
      .toolResult(`Wrote ${edited.length} bytes to big.txt.`)
      .text("Written.")
      .end()
      .user("again")
      .text("Again.")
      .end()
      .build();
    const context = await cliContext(script);
    const { cli, workspace } = context;
    const first = await cli(["run", "--approve", "write twice"]);
    expect(first).toMatchObject({ code: 0, stdout: "Written.\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    const exportedBefore = path.join(workspace.root, "before.jsonl");
    expect((await cli(["sessions", "export", sessionId, "-o", exportedBefore])).code).toBe(0);
    expect((await cli(["storage", "compact", "--older-than", "0s"])).code).toBe(0);
    // One blob is a plain zstd frame, the other a delta: a skippable frame (magic 0x184D2A5D)
    // naming the first as its base, then a frame far smaller than the first's.
    const files = blobFiles(workspace.home).map((file) => readFileSync(file));
    expect(files).toHaveLength(2);
    const delta = files.find((bytes) => bytes.readUInt32LE(0) === 0x184d2a5d);
    const plain = files.find((bytes) => bytes.readUInt32LE(0) === 0xfd2fb528);
    expect(delta?.toString("latin1", 8, 20)).toBe("base sha256:");
    expect(delta!.length).toBeLessThan(plain!.length / 4);
    await expectSameAfterCompact(context, sessionId, exportedBefore);
  });

  it("a missing blob is a BLOB_MISSING error naming the event, and the log is left as it is", async () => {
    const { cli, workspace } = await cliContext(readBigScript());
    const first = await cli(["run", "--approve", "read it"]);
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    // A turn after the blob's: its end was acknowledged, so the loss is damage (in the last turn
    // it would be taken for a write a power cut cut short: architecture/storage.md).
    expect(await cli(["run", "-c", "again"])).toMatchObject({ code: 0 });
    const logPath = path.join(workspace.home, "sessions", `${sessionId}.jsonl`);
    const log = readFileSync(logPath);
    unlinkSync(blobFiles(workspace.home)[0]!);
    const verify = await cli(["sessions", "verify", sessionId]);
    expect(verify.code).not.toBe(0);
    expect(`${verify.stdout}${verify.stderr}`).toMatch(/BLOB_MISSING.*event \d+ \(function_call\)/);
    expect(readFileSync(logPath).equals(log)).toBe(true);
  });

  it("a truncated compressed log is a COLD_LOG_CORRUPT error naming the session for verify, show and export, and the .zst is left as it is", async () => {
    const { cli, workspace } = await cliContext();
    const store = createSessionStore({ home: workspace.home });
    const seed = Array.from({ length: 400 }, (_, index) => ({
      type: "message" as const,
      runId: "r",
      role: "user" as const,
      content: `question ${index}: ${(index * 7919).toString(36).repeat(40)}`,
    }));
    const { sessionId } = await store.create({ cwd: workspace.cwd, seed });
    expect((await store.compact(sessionId)).action).toBe("compressed");
    const coldPath = `${store.pathOf(sessionId)}.zst`;
    truncateSync(coldPath, Math.floor(statSync(coldPath).size * 0.6));
    const damaged = readFileSync(coldPath);
    const cases = [
      ["sessions", "verify", sessionId],
      ["sessions", "show", sessionId],
      ["sessions", "export", sessionId, "-o", path.join(workspace.root, "out.jsonl")],
    ];
    for (const args of cases) {
      const result = await cli(args);
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`, args.join(" ")).toMatch(
        new RegExp(
          `COLD_LOG_CORRUPT at (session ${sessionId}, )?line \\d+, byte \\d+: the compressed log ${sessionId}\\.jsonl\\.zst ends before its last frame does: \\d+ of \\d+ bytes could be read \\(truncated\\)`,
        ),
      );
    }
    expect(readFileSync(coldPath).equals(damaged)).toBe(true);
    expect(existsSync(store.pathOf(sessionId))).toBe(false);
  });

  it("storage --empty-trash frees the trash and says how much; bad durations are one sentence", async () => {
    const { cli } = await cliContext();
    expect(await cli(["storage", "--empty-trash"])).toMatchObject({
      code: 0,
      stdout: "Freed 0 B (0 files) from the trash.\n",
    });
    const bad = await cli(["storage", "compact", "--older-than", "soon"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('"soon" is not a duration');
  });

  it("storage prune moves old sessions to the trash, keeps a kept fork's parent, and --empty-trash frees them", async () => {
    const { cli, workspace } = await cliContext();
    const store = createSessionStore({ home: workspace.home });
    const seed = [{ type: "message" as const, runId: "r", role: "user" as const, content: "hi" }];
    const parent = (await store.create({ cwd: workspace.cwd, seed })).sessionId;
    const fork = (await store.fork(parent)).sessionId;
    const alone = (await store.create({ cwd: workspace.cwd, seed })).sessionId;
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const id of [parent, alone]) utimesSync(store.pathOf(id), old, old);
    expect(await cli(["storage", "prune"])).toMatchObject({ code: 2 });
    const dry = await cli(["storage", "prune", "--older-than", "30d", "--dry-run"]);
    expect(dry.stdout).toMatch(/^Would move 1 session \(/);
    expect((await sessionFiles(workspace.home)).sort()).toHaveLength(3);
    const pruned = await cli(["storage", "prune", "--older-than", "30d"]);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(/^Moved 1 session \(\S+ \S+\) to the trash/);
    expect(pruned.stdout).toContain("1 older session(s) kept: forks that stay read them.");
    expect((await sessionFiles(workspace.home)).sort()).toEqual(
      [`${parent}.jsonl`, `${fork}.jsonl`].sort(),
    );
    expect(readdirSync(path.join(workspace.home, "trash"))).toEqual([`${alone}.jsonl`]);
    const emptied = await cli(["storage", "--empty-trash"]);
    expect(emptied.stdout).toMatch(/^Freed \d+(\.\d)? (B|kB) \(1 files\) from the trash\.$/m);
    expect(readdirSync(path.join(workspace.home, "trash"))).toEqual([]);
  });

  it("storage counts kept tails and import state; compact removes a killed writer's tail temp and the tail of a session whose log is gone, and keeps a live one", async () => {
    const { cli, workspace } = await cliContext(twoTurnsScript());
    const first = await cli(["run", "hi"]);
    expect(first).toMatchObject({ code: 0, stdout: "Hello.\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    const tails = path.join(workspace.home, "tails");
    expect(readdirSync(tails)).toEqual([`${sessionId}.json`]);
    // What a writer killed between the tail's temp write and its rename leaves (its pid is dead),
    // and the tail of a session whose log was removed by hand.
    const deadTemp = `.${sessionId}.${deadPid()}.0123456789ab.1.tmp`;
    writeFileSync(path.join(tails, deadTemp), readFileSync(path.join(tails, `${sessionId}.json`)));
    const goneId = "019b4dc5-813f-743f-8c49-481b373d2e09";
    writeFileSync(path.join(tails, `${goneId}.json`), "{}");
    // Continuous import's state: a grown-source record and a source's state file.
    const grown = path.join(workspace.home, "import", "grown", "codex");
    mkdirSync(grown, { recursive: true });
    writeFileSync(path.join(grown, `${"a".repeat(32)}.json`), "x".repeat(300));
    writeFileSync(path.join(workspace.home, "import", "codex.json"), "y".repeat(200));

    const tailBytes = () =>
      readdirSync(tails).reduce((sum, name) => sum + statSync(path.join(tails, name)).size, 0);
    const before = (await cli(["storage"])).stdout;
    const row = (kind: string, bytes: number, files: number) =>
      new RegExp(`^${kind} +${formatBytes(bytes).replace(".", "\\.")} +${files} files$`, "m");
    expect(before).toMatch(row("kept tails", tailBytes(), 3));
    expect(before).toMatch(row("import state", 500, 2));

    expect((await cli(["storage", "compact", "--older-than", "30d"])).code).toBe(0);
    expect(readdirSync(tails)).toEqual([`${sessionId}.json`]);
    expect((await cli(["storage"])).stdout).toMatch(row("kept tails", tailBytes(), 1));
    // The kept tail still describes the log: the next run continues from it.
    expect(await cli(["run", "-c", "again"])).toMatchObject({ code: 0, stdout: "Again.\n" });
    expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
  });

  it("a session pruned to the trash and put back with mv resumes: prune forgot its tail, the resumed run replays it and keeps a valid one", async () => {
    const { cli, server, workspace } = await cliContext(twoTurnsScript());
    const first = await cli(["run", "hi"]);
    expect(first).toMatchObject({ code: 0, stdout: "Hello.\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    const logPath = path.join(workspace.home, "sessions", `${sessionId}.jsonl`);
    const tail = path.join(workspace.home, "tails", `${sessionId}.json`);
    expect(existsSync(tail)).toBe(true);
    const old = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(logPath, old, old);
    const pruned = await cli(["storage", "prune", "--older-than", "30d"]);
    expect(pruned.stdout).toMatch(/^Moved 1 session /);
    expect(existsSync(tail)).toBe(false);
    renameSync(path.join(workspace.home, "trash", `${sessionId}.jsonl`), logPath);
    expect(await cli(["run", "-c", "again"])).toMatchObject({ code: 0, stdout: "Again.\n" });
    expect(server?.failures()).toEqual([]);
    expect(await cli(["sessions", "verify", "--all"])).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(tail, "utf8")).size).toBe(statSync(logPath).size);
    // Compact keeps that tail (its session is live) and the trash holds nothing of it.
    expect((await cli(["storage", "compact", "--older-than", "30d"])).code).toBe(0);
    expect(existsSync(tail)).toBe(true);
    expect(readdirSync(path.join(workspace.home, "trash"))).toEqual([]);
  });
});

/** Two plain turns: "hi" → "Hello.", then "again" → "Again.". */
function twoTurnsScript() {
  return agentScript().user("hi").text("Hello.").end().user("again").text("Again.").end().build();
}

/** A process id that runs no process: a child's, once it has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  if (child.pid === undefined) throw new Error("no child");
  return child.pid;
}
