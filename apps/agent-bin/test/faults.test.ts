/**
 * Faults end in one clear sentence (issue #11 item 7), over the spawned binary: a disk that fills
 * up (a real 64 KB tmpfs as the home), a model stream that never ends, and a partial answer
 * followed by its error.
 */

import { readdirSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { homeLogs, smallDisk, spawnAcp } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every file under `dir` whose name says it is temporary. */
function tempFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) =>
    /\.tmp$|\.copy$|\.partial$/.test(name),
  );
}

/** A spawned `tapedeck acp` with a new session in `cwd`; `prompt(text)` sends one prompt. */
async function acpSession(env: Record<string, string>, cwd: string) {
  const agent = spawnAcp(env, cwd);
  cleanups.push(() => agent.close());
  await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
  });
  const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
    cwd,
    mcpServers: [],
  });
  const prompt = (text: string) =>
    agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
  return { sessionId, prompt };
}

/** A home on a 64 KB file system, for a model that answers with `bytes` of text. */
async function fullHome(bytes: number) {
  const context = await hostileModel(Array(3).fill({ text: "y".repeat(bytes) }));
  const disk = smallDisk(context.workspace.home, 64 * 1024);
  cleanups.push(() => disk.unmount());
  if (disk.how === "injected") {
    console.info("faults.test: no tmpfs could be mounted here; disk full is injected instead");
  }
  return { ...context, disk, env: { ...context.env, ...disk.env } };
}

describe("a full disk (the home on a 64 KB tmpfs)", () => {
  it("tapedeck run says 'disk full (ENOSPC) writing PATH' in one line; the log stays whole; no .tmp", async () => {
    const { cli, workspace, disk } = await fullHome(100_000);
    const result = await cli(["run", "--approve", "write a lot"], { env: disk.env });
    expect(result.code).toBe(1);
    const errors = result.stderr.trimEnd().split("\n");
    const last = errors.at(-1) ?? "";
    expect(last).toMatch(
      new RegExp(
        // Whichever file of the home fills the disk first (the log, the blob of the 100 KB
        // answer, the session's trust record) is the one named.
        `^tapedeck: disk full \\(ENOSPC\\) writing ${workspace.home}/(sessions/[0-9a-f-]{36}\\.jsonl|blobs/sha256/[0-9a-f]{2}/[0-9a-f]{62}\\.zst|trust/[0-9a-f-]{36})$`,
      ),
    );
    expect(result.stderr).not.toMatch(/earlier write|at .*\.mjs|Error:|SqliteError/);
    expect(tempFiles(workspace.home)).toEqual([]);
    // The log ends at its last whole line: verify says ok, nothing to repair.
    const verify = await cli(["sessions", "verify", "--all"], { env: disk.env });
    expect(verify.stdout).toMatch(/^ok {7}[0-9a-f-]{36}\n$/);
    expect(verify.code).toBe(0);
  });

  it("ACP session/prompt fails with the same sentence", async () => {
    const { workspace, env } = await fullHome(100_000);
    const { sessionId, prompt } = await acpSession(env, workspace.cwd);
    await expect(prompt("write a lot")).rejects.toMatchObject({
      message: `disk full (ENOSPC) writing ${workspace.home}/sessions/${sessionId}.jsonl`,
    });
    expect(tempFiles(workspace.home)).toEqual([]);
  });
});

describe("an export to a full disk", () => {
  it("says 'disk full (ENOSPC) writing FILE' and leaves neither the file nor a temp file", async () => {
    const { cli, workspace } = await hostileModel([{ text: "z".repeat(100_000) }]);
    expect((await cli(["run", "write a lot"])).code).toBe(0);
    const sessionId = /^([0-9a-f-]{36})/.exec((await cli(["sessions", "list"])).stdout)?.[1];
    const disk = smallDisk(path.join(workspace.root, "out"), 64 * 1024);
    cleanups.push(() => disk.unmount());
    const file = path.join(disk.dir, "session.jsonl");
    const result = await cli(["sessions", "export", String(sessionId), "-o", file], {
      env: disk.env,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: `tapedeck: disk full (ENOSPC) writing ${file}\n`,
    });
    expect(readdirSync(disk.dir)).toEqual([]);
  });
});

describe("a model stream that never ends", () => {
  const stalled = () => hostileModel([{ text: "partial answer", stall: true }]);
  const idle = { TAPEDECK_STREAM_IDLE_TIMEOUT_MS: "700" };

  it("fails after TAPEDECK_STREAM_IDLE_TIMEOUT_MS with one sentence; answer and error on separate lines", async () => {
    const { cli, workspace } = await stalled();
    const started = Date.now();
    const result = await cli(["run", "hi"], { env: idle });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("partial answer\n");
    expect(result.stderr).toContain(
      "Error [IDLE_TIMEOUT]: the model server sent no data for 700 ms (TAPEDECK_STREAM_IDLE_TIMEOUT_MS sets how long to wait)\n",
    );
    // The log says the same, and keeps the words that were shown.
    const logs = homeLogs(workspace.home);
    const [sessionId = ""] = await logs.sessionIds();
    const events = await logs.lines(sessionId);
    expect(events.at(-1)).toMatchObject({
      type: "turn/end",
      status: "failed",
      error: { code: "IDLE_TIMEOUT" },
    });
    expect(events.some((event) => event.type === "assistant/chunk")).toBe(true);
  });

  it("on a terminal, the partial answer's line ends before the error", async () => {
    const { cli } = await stalled();
    const result = await cli(["run", "hi"], { env: idle, terminal: { answer: "n" } });
    expect(result.stdout).toMatch(/partial answer\r?\nError \[IDLE_TIMEOUT\]: the model server/);
  });

  it("ACP session/prompt fails with the sentence", async () => {
    const { workspace, env } = await stalled();
    const { prompt } = await acpSession({ ...env, ...idle }, workspace.cwd);
    await expect(prompt("hi")).rejects.toMatchObject({
      message: expect.stringMatching(/^the model server sent no data for 700 ms/),
    });
  });
});
