import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defaultTools } from "@tapedeck/agent";
import { runEventsOfLog } from "@tapedeck/host";
import type { SessionEvent } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import {
  cliContext,
  homeLogs,
  jsonLines as lines,
  runCli,
  agentScript as script,
  tapedeckBinary,
  withRunTmpdir,
  writeFileScript,
} from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const context = cliContext;

describe("tapedeck run", () => {
  it("starts a session, continues it with -c and -r PREFIX, and forks it with --fork", async () => {
    const recording = script()
      .user("one")
      .text("A1")
      .user("two")
      .text("A2")
      .user("three")
      .text("A3")
      .user("branch")
      .text("B1")
      .end()
      .build();
    const { cli, server, logs } = await context(recording);
    const first = await cli(["run", "one"]);
    expect(first).toMatchObject({ code: 0, stdout: "A1\n" });
    const sessionId = /session (\S+) · completed/.exec(first.stderr)?.[1] ?? "";
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await cli(["run", "-c", "two"])).toMatchObject({ code: 0, stdout: "A2\n" });
    expect(await cli(["run", "-r", sessionId.slice(0, 8), "three"])).toMatchObject({
      code: 0,
      stdout: "A3\n",
    });
    expect(await logs.sessionIds()).toEqual([sessionId]);
    const parentLog = await logs.text(sessionId);
    const forked = await cli(["run", "--fork", sessionId, "branch"]);
    expect(forked).toMatchObject({ code: 0, stdout: "B1\n" });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    const ids = await logs.sessionIds();
    expect(ids).toHaveLength(2);
    const child = ids.find((id) => id !== sessionId) ?? "";
    const childLines = await logs.lines(child);
    const parentLines = lines(parentLog ?? "");
    expect(childLines[0]).toMatchObject({ parent: { sessionId, seq: parentLines.at(-1)?.seq } });
    // A fork is a new session: its first run is named after it, as every new session's is.
    const childRuns = childLines.filter((line) => line.seq !== undefined).map((line) => line.runId);
    expect(new Set(childRuns)).toEqual(new Set([child]));
    expect(await logs.text(sessionId)).toBe(parentLog);
    const turns = parentLines.filter((line) => line.type === "turn/start");
    expect(turns.map((turn) => turn.resumed)).toEqual([false, true, true]);
  });

  it("prints run events as JSON lines with --json, run_started first", async () => {
    const { cli } = await context(script().user("hi").text("hello").end().build());
    const result = await cli(["run", "--json", "hi"]);
    expect(result.code).toBe(0);
    const events = lines(result.stdout);
    expect(events[0]).toMatchObject({
      type: "run_started",
      resumed: false,
      policy: { approval: "ask" },
    });
    expect(events.at(-1)).toMatchObject({
      type: "run_finished",
      status: "completed",
      stopReason: "end_turn",
    });
  });

  it("--json prints the host's projection of the run's log, plus the live tool_started", async () => {
    const { cli, logs, workspace } = await context(writeFileScript());
    const result = await cli(["run", "--json", "--approve", "write it"]);
    expect(result.code).toBe(0);
    const printed = lines(result.stdout);
    const [sessionId] = await logs.sessionIds();
    const [, ...events] = await logs.lines(sessionId ?? "");
    const projected = runEventsOfLog(events as unknown as SessionEvent[], {
      sessionId: sessionId ?? "",
      tools: defaultTools(),
      cwd: workspace.cwd,
    });
    expect(printed.filter((event) => event.type !== "tool_started")).toEqual(projected);
    expect(printed.map((event) => event.type)).toEqual([
      "run_started",
      "usage",
      "tool_call",
      "tool_started",
      "tool_result",
      "text_delta",
      "usage",
      "run_finished",
    ]);
  });

  it("without a terminal, ask rejects writes (and says how to allow them); --approve runs them; --deny refuses", async () => {
    const rejected = await context(
      script()
        .user("write it")
        .toolCall("write_file", { path: "out.txt", content: "x" })
        .toolResult("Error: The user rejected this write_file call.", { isError: true })
        .text("Not written.")
        .end()
        .build(),
    );
    const first = await rejected.cli(["run", "write it"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("--approve");
    await expect(readFile(path.join(rejected.workspace.cwd, "out.txt"), "utf8")).rejects.toThrow();
    expect(rejected.server?.failures()).toEqual([]);

    const approved = await context(writeFileScript());
    const second = await approved.cli(["run", "--approve", "write it"]);
    expect(second).toMatchObject({ code: 0, stdout: "Written.\n" });
    expect(await readFile(path.join(approved.workspace.cwd, "out.txt"), "utf8")).toBe("x");

    const denied = await context(
      script()
        .user("write it")
        .toolCall("write_file", { path: "out.txt", content: "x" })
        .toolResult(
          'Error: write_file was not run: this session is read-only (approval policy "deny").',
          { isError: true },
        )
        .text("Read only.")
        .end()
        .build(),
    );
    expect(await denied.cli(["run", "--deny", "write it"])).toMatchObject({
      code: 0,
      stdout: "Read only.\n",
    });
    await expect(readFile(path.join(denied.workspace.cwd, "out.txt"), "utf8")).rejects.toThrow();
  });

  it("Ctrl-C (SIGINT) mid-run kills the command, ends the turn cancelled and exits 130", async () => {
    const { cli, logs } = await context(
      script()
        .user("slow")
        .toolCall("run_command", { command: "sleep 20" })
        .toolResult("Error: Command cancelled; it was killed.\n", { isError: true })
        .end("cancelled")
        .build(),
    );
    const started = Date.now();
    let sent = false;
    const result = await cli(["run", "--approve", "slow"], (stderr, child) => {
      if (!sent && stderr.includes("● Run sleep 20")) {
        sent = true;
        // Once the command runs: its process record is in the log.
        void (async () => {
          for (;;) {
            const [id] = await logs.sessionIds();
            // A line being written may be torn: read again.
            const lines = id === undefined ? [] : await logs.lines(id).catch(() => []);
            if (lines.some((event) => event.type === "x-process/start")) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          child.kill("SIGINT");
        })();
      }
    });
    expect(result.code).toBe(130);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stderr).toContain("Cancelling");
    const [sessionId = ""] = await logs.sessionIds();
    const log = await logs.lines(sessionId);
    expect(log.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
    expect(log.find((line) => line.type === "function_call_output")).toMatchObject({
      isError: true,
    });
  });

  it("an ambiguous id prefix lists the candidates; a short or unknown one is refused", async () => {
    const { cli, workspace } = await context();
    for (const sessionId of [
      "0193b6e2-7c1a-7d3e-9f00-000000000001",
      "0193b6e2-7c1a-7d3e-9f00-000000000002",
    ]) {
      const log = eventLogBuilder({ sessionId, cwd: workspace.cwd })
        .system("s")
        .turn()
        .user("u")
        .assistant("a")
        .end();
      homeLogs(workspace.home).write(log.jsonl());
    }
    const ambiguous = await cli(["run", "-r", "0193b6e2", "x"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("matches 2 sessions");
    expect(ambiguous.stderr).toContain("0193b6e2-7c1a-7d3e-9f00-000000000001");
    expect(ambiguous.stderr).toContain("0193b6e2-7c1a-7d3e-9f00-000000000002");
    expect((await cli(["run", "-r", "0193b", "x"])).stderr).toContain("at least 6");
    expect((await cli(["run", "-r", "ffffffff", "x"])).stderr).toContain("was not found");
    expect(
      (await cli(["sessions", "show", "0193b6e2-7c1a-7d3e-9f00-000000000002"])).stdout,
    ).toContain("> u");
  });

  it("without an API key it says which variable to set and creates no session", async () => {
    const { workspace, logs } = await context();
    const result = await runCli(["run", "hi"], {
      cwd: workspace.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: workspace.root, TAPEDECK_HOME: workspace.home },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("OPENAI_API_KEY");
    expect(await logs.sessionIds()).toEqual([]);
  });

  it("piped into a reader that stops early (| head), exits 0 without an EPIPE stack trace", async () => {
    const { workspace } = await context();
    for (let i = 1; i <= 3; i++) {
      const sessionId = `0193b6e2-7c1a-7d3e-9f00-00000000000${i}`;
      const log = eventLogBuilder({ sessionId, cwd: workspace.cwd })
        .system("s")
        .turn()
        .user("u")
        .end();
      homeLogs(workspace.home).write(log.jsonl());
    }
    const child = spawn(process.execPath, [tapedeckBinary(), "sessions", "list", "--all"], {
      cwd: workspace.cwd,
      env: withRunTmpdir({ PATH: process.env.PATH ?? "", TAPEDECK_HOME: workspace.home }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy(); // the reader is gone before the first line is written
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("/compact without a session to compact is a usage error and creates no session", async () => {
    const { cli, logs } = await context();
    const result = await cli(["run", "/compact"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "tapedeck: /compact summarizes an earlier session: use it with -c, -r ID or --fork ID.\n",
    );
    expect(await logs.sessionIds()).toEqual([]);
  });

  it("refuses bad usage with exit code 2", async () => {
    const { cli } = await context();
    expect((await cli(["run"])).code).toBe(2);
    expect((await cli(["run", "--approve", "--deny", "x"])).code).toBe(2);
    expect((await cli(["run", "--bogus", "x"])).code).toBe(2);
    expect((await cli(["nope"])).code).toBe(2);
  });
});
