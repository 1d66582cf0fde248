import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import * as unstable from "@agentclientprotocol/sdk/unstable";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { agentScript, cliContext, gitRepo, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const EDIT_COMMAND =
  "sed -i s/one/two/ a.txt && echo fresh > new.txt && rm tracked.txt && chmod +x run.sh && mv move.txt moved.txt";

/** Two turns: write_file a.txt, then one run_command that edits, adds, deletes, chmods, renames. */
function twoTurns() {
  return turnsScript().end().build();
}

/** The two turns, then a third (a forked run's) that only answers. */
function threeTurns() {
  return turnsScript().user("t3").text("ok3").end().build();
}

function turnsScript() {
  return agentScript()
    .user("t1")
    .toolCall("write_file", { path: "a.txt", content: "one\n" })
    .toolResult("Wrote 4 bytes to a.txt.")
    .text("ok1")
    .user("t2")
    .toolCall("run_command", { command: EDIT_COMMAND })
    .toolResult("exit code 0\n")
    .text("ok2");
}

/** A git repository with three committed files and an ignored one. */
function makeRepo(cwd: string): void {
  gitRepo(cwd, {
    "tracked.txt": "tracked\n",
    "run.sh": "echo run\n",
    "move.txt": "a file that will be renamed by the agent\n",
    ".gitignore": "*.log\n",
  });
  writeFileSync(path.join(cwd, "debug.log"), "ignored, never touched\n");
}

/** Every file under `dir` (mode + sha256), optionally without `.git`. */
function snapshot(dir: string, withGit = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (!withGit && current === dir && entry.name === ".git") continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const mode = (statSync(full).mode & 0o777).toString(8);
        out[path.relative(dir, full)] =
          `${mode} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
      }
    }
  };
  walk(dir);
  return out;
}

type LogLine = Record<string, unknown> & {
  seq?: number;
  type?: string;
  name?: string;
  checkpoint?: { id?: string; changed: { path: string; change: string; from?: string }[] };
};

async function twoTurnSession(script = twoTurns()) {
  const context = await cliContext(script, { match: "off" });
  const { cwd } = context.workspace;
  makeRepo(cwd);
  const userGit = snapshot(path.join(cwd, ".git"), true);
  expect((await context.cli(["run", "--approve", "t1"])).code).toBe(0);
  expect((await context.cli(["run", "--approve", "-c", "t2"])).code).toBe(0);
  const [sessionId = ""] = await context.logs.sessionIds();
  const lines = (await context.logs.lines(sessionId)) as LogLine[];
  const starts = lines.filter((line) => line.type === "turn/start");
  const outputs = lines.filter((line) => line.type === "function_call_output");
  return { ...context, cwd, sessionId, userGit, lines, starts, outputs };
}

const KILL_FILES = 300;
/** The suffix of a restore's temp files (@tapedeck/checkpoints RESTORE_TEMP_SUFFIX). */
const TEMP_SUFFIX = ".tapedeck-restore.tmp";

/**
 * Two turns fill many/ with 300 files of "o" then of "n"; a rewind to the second turn's start is
 * killed with SIGKILL as soon as `when` holds. Then each file must be whole (all "o" or all "n"),
 * the journal must hold the undo, and `rewind --undo` must put every file back to "n", leaving no
 * temp file behind.
 */
async function killDuringRewind(
  when: (state: { journaled: boolean; temps: number }) => boolean,
): Promise<void> {
  const fill = (word: string) =>
    `mkdir -p many && for i in $(seq ${KILL_FILES}); do head -c 40000 /dev/zero | tr '\\0' ${word.charAt(0)} > many/f$i; done`;
  const context = await cliContext(
    agentScript()
      .user("old")
      .toolCall("run_command", { command: fill("o") })
      .toolResult("exit code 0\n")
      .text("ok")
      .user("new")
      .toolCall("run_command", { command: fill("n") })
      .toolResult("exit code 0\n")
      .text("ok")
      .end()
      .build(),
    { match: "off" },
  );
  const { cwd, home } = context.workspace;
  expect((await context.cli(["run", "--approve", "old"])).code).toBe(0);
  expect((await context.cli(["run", "--approve", "-c", "new"])).code).toBe(0);
  const [sessionId = ""] = await context.logs.sessionIds();
  const lines = (await context.logs.lines(sessionId)) as LogLine[];
  const second = lines.filter((line) => line.type === "turn/start")[1]?.seq ?? 0;
  /** The rewind journal holds a whole line: the undo checkpoint is recorded. */
  const journal = () => {
    const root = path.join(home, "checkpoints");
    return readdirSync(root).some((dir) => {
      const file = path.join(root, dir, "rewinds.jsonl");
      return existsSync(file) && readFileSync(file, "utf8").endsWith("\n");
    });
  };
  const temps = () =>
    readdirSync(path.join(cwd, "many")).filter((name) => name.endsWith(TEMP_SUFFIX));
  const child = spawn(
    process.execPath,
    [tapedeckBinary(), "rewind", `${sessionId}@${second}`, "--files-only"],
    { cwd, env: context.env, stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (when({ journaled: journal(), temps: temps().length }) || child.exitCode !== null) {
        clearInterval(poll);
        child.kill("SIGKILL");
        resolve();
      }
    }, 1);
  });
  await exited;
  const whole = (char: string) => char.repeat(40000);
  for (let index = 1; index <= KILL_FILES; index += 1) {
    const content = readFileSync(path.join(cwd, "many", `f${index}`), "utf8");
    expect([whole("o"), whole("n")]).toContain(content);
  }
  expect(journal()).toBe(true);
  const undo = await context.cli(["rewind", "--undo"]);
  expect(undo.stderr).toBe("");
  expect(undo.code).toBe(0);
  for (let index = 1; index <= KILL_FILES; index += 1) {
    expect(readFileSync(path.join(cwd, "many", `f${index}`), "utf8")).toBe(whole("n"));
  }
  expect(temps()).toEqual([]);
}

describe("checkpoints and rewind over the real binary", () => {
  it("records write_file, sed, a new file, a deletion, a chmod and a rename in the log", async () => {
    const { cli, sessionId, starts, outputs } = await twoTurnSession();
    expect(starts).toHaveLength(2);
    for (const line of [...starts, ...outputs])
      expect(line.checkpoint?.id).toMatch(/^(?:[0-9a-f]{40}|lc-[0-9a-f]{32})$/);
    expect(outputs[0]?.checkpoint?.changed).toEqual([{ path: "a.txt", change: "added" }]);
    const changed = outputs[1]?.checkpoint?.changed ?? [];
    expect(changed).toEqual(
      expect.arrayContaining([
        { path: "a.txt", change: "modified" },
        { path: "new.txt", change: "added" },
        { path: "tracked.txt", change: "deleted" },
        { path: "run.sh", change: "mode" },
        { path: "moved.txt", change: "renamed", from: "move.txt" },
      ]),
    );
    expect(changed).toHaveLength(5);
    expect(changed.some((change) => change.path.endsWith(".log"))).toBe(false);
    const storage = await cli(["storage"]);
    expect(storage.code).toBe(0);
    expect(storage.stdout).toMatch(/^checkpoints +[1-9][0-9.]* [kKM]?i?B +[1-9]/m);
    const listed = await cli(["checkpoints", sessionId]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("write_file");
    expect(listed.stdout).toMatch(/run_command\s+(?:[0-9a-f]{12}|lc-[0-9a-f]{9})\s+5 changed/);
  });

  it("rewinds to each turn (dry run first), undoes, and never writes the user's .git or ignored files", async () => {
    const { cli, cwd, sessionId, starts, userGit, logs } = await twoTurnSession();
    const afterTurns = snapshot(cwd);
    const second = starts[1]?.seq ?? 0;
    const dry = await cli(["rewind", `${sessionId}@${second}`, "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as { changes: { path: string; change: string }[] };
    expect(plan.changes.map((change) => `${change.change} ${change.path}`).sort()).toEqual([
      "added move.txt",
      "added tracked.txt",
      "deleted moved.txt",
      "deleted new.txt",
      "modified a.txt",
      "modified run.sh",
    ]);
    expect(snapshot(cwd)).toEqual(afterTurns);

    const files = await cli(["rewind", `${sessionId}@${second}`, "--files-only"]);
    expect(files.code).toBe(0);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(path.join(cwd, "tracked.txt"), "utf8")).toBe("tracked\n");
    expect(statSync(path.join(cwd, "run.sh")).mode & 0o111).toBe(0);
    expect(readFileSync(path.join(cwd, "move.txt"), "utf8")).toContain("renamed");
    expect(() => statSync(path.join(cwd, "new.txt"))).toThrow();
    expect(await logs.sessionIds()).toHaveLength(1);

    expect((await cli(["rewind", "--undo"])).code).toBe(0);
    expect(snapshot(cwd)).toEqual(afterTurns);

    const first = starts[0]?.seq ?? 0;
    const forked = await cli(["rewind", `${sessionId}@${first}`]);
    expect(forked.code).toBe(0);
    expect(forked.stdout).toContain("tapedeck run -c");
    expect(() => statSync(path.join(cwd, "a.txt"))).toThrow();
    expect(readFileSync(path.join(cwd, "tracked.txt"), "utf8")).toBe("tracked\n");
    const ids = await logs.sessionIds();
    expect(ids).toHaveLength(2);
    const fork = ids.find((id) => id !== sessionId) ?? "";
    expect((await logs.lines(fork))[0]).toMatchObject({ parent: { sessionId, seq: first } });

    expect(readFileSync(path.join(cwd, "debug.log"), "utf8")).toBe("ignored, never touched\n");
    expect(snapshot(path.join(cwd, ".git"), true)).toEqual(userGit);
  });

  it("names a hand edit and refuses to overwrite it without --force when not on a terminal", async () => {
    const { cli, cwd, sessionId, starts } = await twoTurnSession();
    writeFileSync(path.join(cwd, "a.txt"), "edited by hand\n");
    const refused = await cli(["rewind", `${sessionId}@${starts[1]?.seq}`, "--files-only"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("a.txt");
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("edited by hand\n");
    const forced = await cli([
      "rewind",
      `${sessionId}@${starts[1]?.seq}`,
      "--files-only",
      "--force",
    ]);
    expect(forced.code).toBe(0);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect((await cli(["rewind", "--undo"])).code).toBe(0);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("edited by hand\n");
  });

  it("run --fork ID@SEQ --restore-files puts the files back, then runs the fork; a hand edit is refused off a terminal, naming the command that overwrites it", async () => {
    const { cli, cwd, sessionId, starts, userGit, logs } = await twoTurnSession(threeTurns());
    const afterTurns = snapshot(cwd);
    const point = `${sessionId}@${starts[1]?.seq}`;
    writeFileSync(path.join(cwd, "a.txt"), "edited by hand\n");
    const refused = await cli(["run", "--approve", "--fork", point, "--restore-files", "t3"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("a.txt");
    expect(refused.stderr).toContain(`tapedeck rewind ${point} --files-only --force`);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("edited by hand\n");
    expect(await logs.sessionIds()).toEqual([sessionId]);

    writeFileSync(path.join(cwd, "a.txt"), "two\n"); // as the agent left it
    const usage = await cli(["run", "--approve", "--restore-files", "t3"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--restore-files needs --fork ID@SEQ");

    const run = await cli(["run", "--approve", "--fork", point, "--restore-files", "t3"]);
    expect(run.stderr).toContain("Restored 6 files");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ok3");
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(path.join(cwd, "tracked.txt"), "utf8")).toBe("tracked\n");
    expect(statSync(path.join(cwd, "run.sh")).mode & 0o111).toBe(0);
    expect(() => statSync(path.join(cwd, "new.txt"))).toThrow();
    const ids = await logs.sessionIds();
    expect(ids).toHaveLength(2);
    const fork = ids.find((id) => id !== sessionId) ?? "";
    expect((await logs.lines(fork))[0]).toMatchObject({
      parent: { sessionId, seq: starts[1]?.seq },
    });

    expect((await cli(["rewind", "--undo"])).code).toBe(0);
    expect(snapshot(cwd)).toEqual(afterTurns);
    expect(readFileSync(path.join(cwd, "debug.log"), "utf8")).toBe("ignored, never touched\n");
    expect(snapshot(path.join(cwd, ".git"), true)).toEqual(userGit);
  });

  it("the MCP server's read_session says which files each turn and tool changed", async () => {
    const { cwd, env, sessionId } = await twoTurnSession();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [tapedeckBinary(), "mcp"],
      cwd,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "tapedeck-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      let text = "";
      for (let fromSeq = 1; fromSeq > 0; ) {
        const result = (await client.callTool({
          name: "read_session",
          arguments: { sessionId, fromSeq, limit: 50 },
        })) as CallToolResult;
        const page = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
        text += page;
        fromSeq = Number(/call again with fromSeq (\d+)/.exec(page)?.[1] ?? 0);
      }
      expect(text).toContain("[files: A a.txt]");
      expect(text).toMatch(/function_call_output.*\[files: .*D tracked\.txt/);
      expect(text).toContain("[turn changed files: a.txt]");
      expect(text).toMatch(/turn changed files: .*moved\.txt/);
    } finally {
      await client.close();
    }
  });

  it("ACP session/fork restores the files when the client asks (_meta tapedeck/restoreFiles)", async () => {
    const context = await twoTurnSession();
    const { cwd, sessionId, starts } = context;
    const spawned = context.acp();
    await spawned.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const seq = starts[1]?.seq ?? 0;
    const fork = (await spawned.agent.request(unstable.methods.agent.session.fork, {
      sessionId,
      cwd,
      mcpServers: [],
      _meta: { "tapedeck/restoreFiles": true, "tapedeck/forkAtSeq": seq },
    })) as unstable.ForkSessionResponse;
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(path.join(cwd, "tracked.txt"), "utf8")).toBe("tracked\n");
    expect(fork._meta?.["tapedeck/restoredFiles"]).toMatchObject({ checkpointSeq: seq });
    expect((await context.logs.lines(fork.sessionId))[0]).toMatchObject({
      parent: { sessionId, seq },
    });
  });

  it("kill -9 during a rewind leaves each file old or new, and a checkpoint to undo to", async () => {
    // killed once the undo entry is journaled: before or while the files are written
    await killDuringRewind((state) => state.journaled);
  });

  it("kill -9 while a rewind writes its temp files: files old or new, the undo sweeps the temps", async () => {
    await killDuringRewind((state) => state.temps > 0);
  });
  it("one turn of many commands (the run's file-system watcher answering): each checkpoint names what its command changed", async () => {
    const commands = [
      // the watcher is ready by the end of this one: from its checkpoint on, git is told
      // only what changed
      "sleep 0.5",
      "sed -i s/tracked/edited/ tracked.txt",
      "mkdir -p pkg/deep && echo nested > pkg/deep/new.txt",
      "echo more >> pkg/deep/new.txt && chmod +x run.sh",
      "rm tracked.txt && mv move.txt moved.txt",
      "mv pkg lib",
      "printf '' > .gitignore",
    ];
    let script = agentScript().user("many");
    for (const command of commands) {
      script = script.toolCall("run_command", { command }).toolResult("exit code 0\n");
    }
    const context = await cliContext(script.text("done").end().build(), { match: "off" });
    makeRepo(context.workspace.cwd);
    expect((await context.cli(["run", "--approve", "many"])).code).toBe(0);
    const [sessionId = ""] = await context.logs.sessionIds();
    const lines = (await context.logs.lines(sessionId)) as LogLine[];
    const changed = lines
      .filter((line) => line.type === "function_call_output")
      .map((line) =>
        (line.checkpoint?.changed ?? [])
          .map((change) => [change.change, change.path, change.from].filter(Boolean).join(" "))
          .sort(),
      );
    expect(changed).toEqual([
      [],
      ["modified tracked.txt"],
      ["added pkg/deep/new.txt"],
      ["mode run.sh", "modified pkg/deep/new.txt"],
      ["deleted tracked.txt", "renamed moved.txt move.txt"],
      ["renamed lib/deep/new.txt pkg/deep/new.txt"],
      ["added debug.log", "modified .gitignore"],
    ]);
  });

  it("TAPEDECK_CHECKPOINTS=off records no checkpoint", async () => {
    const context = await cliContext(twoTurns(), {
      match: "off",
      env: { extra: { TAPEDECK_CHECKPOINTS: "off" } },
    });
    expect((await context.cli(["run", "--approve", "t1"])).code).toBe(0);
    const [sessionId = ""] = await context.logs.sessionIds();
    const lines = (await context.logs.lines(sessionId)) as LogLine[];
    expect(lines.filter((line) => line.checkpoint !== undefined)).toEqual([]);
  });
});
