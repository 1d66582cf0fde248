import {
  readdirSync,
  readFileSync,
  renameSync,
  truncateSync,
  unlinkSync,
  utimesSync,
} from "node:fs";
import path from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { binaryEnv, runCli, testWorkspace } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

/** SIGKILLs of `tapedeck storage compact` / `prune` at random moments (set more to soak). */
const kills = Number(process.env.TAPEDECK_STORAGE_CRASH_KILLS ?? 16);

const TWO_DAYS_AGO = new Date(Date.now() - 2 * 86_400_000);

/** About `bytes` of varied build output (over the 64 KiB blob threshold when large). */
function output(bytes: number, seed: number): string {
  const lines: string[] = [];
  for (let index = 0, length = 0; length < bytes; index += 1) {
    const line = `[${seed}:${index}] src/m-${(index * 31 + seed) % 97}.ts warning ${(index * 7919 + seed).toString(36)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** One turn whose tool output is `payload`. */
async function turn(store: SessionStore, sessionId: string, payload: string, seed: number) {
  const runId = uuidv7();
  const [, , call] = await store.append(sessionId, [
    { type: "turn/start", runId, policy: { approval: "auto" }, model: "openai:m", resumed: false },
    { type: "message", runId, role: "user", content: `task ${seed}` },
    { type: "function_call", runId, callId: `c${seed}`, name: "run", arguments: "{}" },
  ]);
  await store.append(sessionId, [
    {
      type: "function_call_output",
      runId,
      callId: `c${seed}`,
      output: payload,
      isError: false,
      sourceEventSeqs: [call!.seq],
    },
    { type: "message", runId, role: "assistant", content: `done ${seed}` },
    { type: "turn/end", runId, status: "completed" },
  ]);
}

/**
 * A home of old sessions: some written with blobs off (large outputs inline, which compact moves
 * to blobs), some with blobs (written raw, which compact compresses), a fork by reference.
 */
async function oldHome(home: string, root: string): Promise<string[]> {
  const inline = createSessionStore({ home, blobThreshold: Number.POSITIVE_INFINITY });
  const blobbed = createSessionStore({ home });
  const ids: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const store = index % 2 === 0 ? inline : blobbed;
    const { sessionId } = await store.create({ cwd: root });
    for (let step = 0; step < 3; step += 1) {
      const size = step === 1 ? 150_000 + index * 20_000 : 3_000;
      await turn(store, sessionId, output(size, index * 10 + step), index * 10 + step);
    }
    ids.push(sessionId);
  }
  const fork = await inline.fork(ids[0]!, { atSeq: 7 });
  await turn(inline, fork.sessionId, output(120_000, 99), 99);
  ids.push(fork.sessionId);
  await makeOld(home);
  return ids;
}

/** Every log (plain or compressed) last changed two days ago: cold, and old enough to prune. */
async function makeOld(home: string): Promise<void> {
  const store = createSessionStore({ home });
  for (const log of (await store.scan()).logs) {
    const file = `${store.pathOf(log.sessionId)}${log.compressed === true ? ".zst" : ""}`;
    utimesSync(file, TWO_DAYS_AGO, TWO_DAYS_AGO);
  }
}

/** Puts back whatever prune moved to the trash (what a person does with `mv`). */
function restoreTrash(home: string): void {
  const trash = path.join(home, "trash");
  let names: string[];
  try {
    names = readdirSync(trash);
  } catch {
    return;
  }
  for (const name of names) renameSync(path.join(trash, name), path.join(home, "sessions", name));
}

/** Each session's events as every reader sees them (blobs resolved). */
async function eventsOf(home: string, ids: readonly string[]): Promise<Map<string, string>> {
  const store = createSessionStore({ home });
  const found = new Map<string, string>();
  for (const id of ids) found.set(id, JSON.stringify((await store.readSession(id)).events));
  return found;
}

describe("kill -9 over storage compact and prune (the real binary)", () => {
  it(`${kills} SIGKILLs at random moments: every log verifies and reads the same events, none is lost`, async () => {
    const workspace = await testWorkspace();
    const env = binaryEnv(workspace);
    const ids = await oldHome(workspace.home, workspace.root);
    const expected = await eventsOf(workspace.home, ids);
    const cwd = workspace.cwd;

    // How long a whole run takes here: the kills fall from its start to past its end.
    const started = performance.now();
    expect((await runCli(["storage", "compact", "--dry-run"], { cwd, env })).code).toBe(0);
    const span = performance.now() - started;

    let cut = 0;
    for (let kill = 0; kill < kills; kill += 1) {
      const args =
        kill % 3 === 2
          ? ["storage", "prune", "--older-than", "1d"]
          : ["storage", "compact", "--older-than", "1d"];
      const result = await runCli(args, {
        cwd,
        env,
        timeoutMs: Math.round(span * (0.4 + Math.random() * 1.2)),
      });
      if (result.code === null) cut += 1;
      else expect(result, result.stderr).toMatchObject({ code: 0 });
      restoreTrash(workspace.home);
      const verify = await runCli(["sessions", "verify", "--all"], { cwd, env });
      expect(
        verify,
        `after kill ${kill} (${args.join(" ")}): ${verify.stdout}${verify.stderr}`,
      ).toMatchObject({ code: 0 });
      expect(await eventsOf(workspace.home, ids)).toEqual(expected);
      // Every other round, a writer restores a few logs to plain, so compact has work again.
      if (kill % 2 === 1) {
        const store = createSessionStore({ home: workspace.home });
        for (const id of ids.slice(kill % 3, (kill % 3) + 3))
          await (await store.openWriter(id)).close();
        await makeOld(workspace.home);
      }
    }
    expect(cut).toBeGreaterThan(0);

    // Run to the end: everything compressed, every blob compressed, the same events.
    expect((await runCli(["storage", "compact", "--older-than", "1d"], { cwd, env })).code).toBe(0);
    const store = createSessionStore({ home: workspace.home });
    const { logs } = await store.scan();
    expect(logs).toHaveLength(ids.length);
    expect(logs.filter((log) => log.compressed !== true)).toEqual([]);
    const blobRoot = path.join(workspace.home, "blobs", "sha256");
    const blobNames = readdirSync(blobRoot).flatMap((prefix) =>
      readdirSync(path.join(blobRoot, prefix)),
    );
    expect(blobNames.length).toBeGreaterThanOrEqual(7);
    expect(blobNames.filter((name) => !name.endsWith(".zst"))).toEqual([]);
    expect(await eventsOf(workspace.home, ids)).toEqual(expected);
  }, 600_000);
});

/** The raw blob file named by the line of event `seq` of a session's log. */
function blobOfEvent(store: SessionStore, sessionId: string, seq: number): string {
  const line = readFileSync(store.pathOf(sessionId), "utf8").split("\n")[seq]!;
  const hash = /"blob":"([0-9a-f]{64})"/.exec(line)![1]!;
  return path.join(store.home, "blobs", "sha256", hash.slice(0, 2), hash.slice(2));
}

describe("a power cut between a blob's line and the end of its fsync (the real binary)", () => {
  it("the last turn's lines from the cut blob on (finished or not) are moved aside and the session reads; an earlier turn missing its blob stays refused", async () => {
    const workspace = await testWorkspace();
    const env = binaryEnv(workspace);
    const cwd = workspace.cwd;
    const store = createSessionStore({ home: workspace.home });
    // Cut: a turn that wrote a large tool output (a blob, written raw, fsynced only at the
    // turn's end) and an answer, then the machine lost power: the lines reached the disk, the
    // blob only partly.
    const { sessionId: cut } = await store.create({ cwd: workspace.root });
    await turn(store, cut, output(3_000, 1), 1);
    const runId = uuidv7();
    const writer = await store.openWriter(cut);
    const [, , call] = await writer.append([
      {
        type: "turn/start",
        runId,
        policy: { approval: "auto" },
        model: "openai:m",
        resumed: false,
      },
      { type: "message", runId, role: "user", content: "build it" },
      { type: "function_call", runId, callId: "c2", name: "run", arguments: "{}" },
    ]);
    const [out] = await writer.append([
      {
        type: "function_call_output",
        runId,
        callId: "c2",
        output: output(200_000, 2),
        isError: false,
        sourceEventSeqs: [call!.seq],
      },
      { type: "message", runId, role: "assistant", content: "it built" },
    ]);
    await writer.close();
    truncateSync(blobOfEvent(store, cut, out!.seq), 4096);
    const kept = readFileSync(store.pathOf(cut), "utf8").split("\n").slice(0, out!.seq);

    // Finished last turn: the output, the answer and turn/end in one append, whose fsyncs (the
    // blob's and the log's) ran together; the power went before the blob's ended, so the turn's
    // end is on disk and the blob is not. Nothing from the output on was acknowledged.
    const { sessionId: ended } = await store.create({ cwd: workspace.root });
    await turn(store, ended, output(2_000, 5), 5);
    await turn(store, ended, output(150_000, 6), 6);
    const endedLines = readFileSync(store.pathOf(ended), "utf8").split("\n");
    const endedOutput = endedLines.findIndex((line) => line.includes('"outputBlob"'));
    unlinkSync(blobOfEvent(store, ended, endedOutput));

    // An earlier turn: another turn started after its end (which waited for the blob), so a
    // missing blob is damage.
    const { sessionId: finished } = await store.create({ cwd: workspace.root });
    await turn(store, finished, output(150_000, 3), 3);
    await turn(store, finished, output(1_000, 4), 4);
    unlinkSync(blobOfEvent(store, finished, 4));
    const finishedBytes = readFileSync(store.pathOf(finished));

    /** Verify says TORN_TAIL, repair moves the tail aside, verify passes; repair's output. */
    const repairTornTail = async (sessionId: string): Promise<string> => {
      const verify = await runCli(["sessions", "verify", sessionId], { cwd, env });
      expect(verify.code).toBe(1);
      expect(verify.stdout).toContain("TORN_TAIL");
      const repaired = await runCli(["sessions", "repair", sessionId], { cwd, env });
      expect(repaired, repaired.stderr).toMatchObject({ code: 0 });
      expect(repaired.stdout).toContain("torn tail");
      expect((await runCli(["sessions", "verify", sessionId], { cwd, env })).code).toBe(0);
      return repaired.stdout;
    };
    expect(await repairTornTail(cut)).toContain("Closed the interrupted turn");
    expect(readFileSync(store.pathOf(cut), "utf8").split("\n").slice(0, out!.seq)).toEqual(kept);
    const shown = await runCli(["sessions", "show", cut], { cwd, env });
    expect(shown, shown.stderr).toMatchObject({ code: 0 });
    expect(shown.stdout).toContain("task 1");

    await repairTornTail(ended);
    // The first turn (acknowledged at its end) is kept byte for byte; the cut lines are in the
    // sidecar, byte for byte, not deleted.
    expect(readFileSync(store.pathOf(ended), "utf8").split("\n").slice(0, endedOutput)).toEqual(
      endedLines.slice(0, endedOutput),
    );
    const sidecars = readdirSync(path.dirname(store.pathOf(ended))).filter(
      (name) => name.startsWith(ended) && name.includes(".torn-"),
    );
    expect(sidecars).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(store.pathOf(ended)), sidecars[0]!), "utf8")).toBe(
      `${endedLines.slice(endedOutput, -1).join("\n")}\n`,
    );
    const endedShown = await runCli(["sessions", "show", ended], { cwd, env });
    expect(endedShown, endedShown.stderr).toMatchObject({ code: 0 });
    expect(endedShown.stdout).toContain("task 5");

    const refused = await runCli(["sessions", "repair", finished], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("BLOB_MISSING");
    expect(readFileSync(store.pathOf(finished))).toEqual(finishedBytes);
    const damaged = await runCli(["sessions", "verify", finished], { cwd, env });
    expect(damaged.code).toBe(1);
    expect(damaged.stdout).toContain("BLOB_MISSING");
  }, 120_000);
});
