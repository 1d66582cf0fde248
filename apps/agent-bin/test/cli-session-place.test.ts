import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { cliContext, homeLogs, agentScript as script } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const idOf = (stderr: string) => /session (\S+) · /.exec(stderr)?.[1] ?? "";

function logOf(home: string, sessionId: string) {
  return homeLogs(home).lines(sessionId);
}

/** A session started in `first`, then asked where it runs: the model calls `pwd` there. */
const whereScript = (first: string, second: string) =>
  script({ cwd: first })
    .user("one")
    .text("A1")
    .user("where are you")
    .toolCall("run_command", { command: "pwd" })
    .toolResult(`exit code 0\n${second}\n`)
    .text("here")
    .end()
    .build();

describe("tapedeck run: a resumed session works where it was recorded", () => {
  it("-r from another project runs tools in the session's cwd, not the caller's", async () => {
    const { cli, server, workspace } = await cliContext((w) =>
      whereScript(path.join(w.root, "a"), path.join(w.root, "a")),
    );
    const a = path.join(workspace.root, "a");
    const b = path.join(workspace.root, "b");
    await mkdir(a);
    await mkdir(b);
    const first = await cli(["run", "one"], undefined, { cwd: a });
    const sessionId = idOf(first.stderr);
    const second = await cli(["run", "--approve", "-r", sessionId, "where are you"], undefined, {
      cwd: b,
    });
    expect(server?.failures()).toEqual([]);
    expect(second).toMatchObject({ code: 0, stdout: "here\n" });
    const output = (await logOf(workspace.home, sessionId)).find(
      (event) => event.type === "function_call_output",
    );
    expect(output?.output).toBe(`exit code 0\n${a}\n`);
  });

  it("a recorded cwd that is gone is an error naming it; --cwd DIR chooses another", async () => {
    const { cli, server, workspace, logs } = await cliContext((w) =>
      whereScript(path.join(w.root, "gone"), path.join(w.root, "b")),
    );
    const gone = path.join(workspace.root, "gone");
    const b = path.join(workspace.root, "b");
    await mkdir(gone);
    await mkdir(b);
    const sessionId = idOf((await cli(["run", "one"], undefined, { cwd: gone })).stderr);
    await rm(gone, { recursive: true });
    const before = await logOf(workspace.home, sessionId);
    const refused = await cli(["run", "--approve", "-r", sessionId, "where are you"], undefined, {
      cwd: b,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(gone);
    expect(refused.stderr).toContain("--cwd DIR");
    expect(await logOf(workspace.home, sessionId)).toEqual(before);
    const chosen = await cli(
      ["run", "--approve", "-r", sessionId, "--cwd", b, "where are you"],
      undefined,
      { cwd: workspace.root },
    );
    expect(server?.failures()).toEqual([]);
    expect(chosen).toMatchObject({ code: 0, stdout: "here\n" });
    expect(await logs.sessionIds()).toHaveLength(1);
  });
});

describe("tapedeck run -c", () => {
  it("continues the latest session of the caller's git root from a subdirectory", async () => {
    const { cli, server, workspace, logs } = await cliContext((w) =>
      script({ cwd: path.join(w.root, "repo") })
        .user("one")
        .text("A1")
        .user("two")
        .text("A2")
        .end()
        .build(),
    );
    const repo = path.join(workspace.root, "repo");
    await mkdir(path.join(repo, ".git"), { recursive: true });
    await mkdir(path.join(repo, "src", "deep"), { recursive: true });
    const first = await cli(["run", "one"], undefined, { cwd: repo });
    const second = await cli(["run", "-c", "two"], undefined, {
      cwd: path.join(repo, "src", "deep"),
    });
    expect(server?.failures()).toEqual([]);
    expect(second).toMatchObject({ code: 0, stdout: "A2\n" });
    expect(idOf(second.stderr)).toBe(idOf(first.stderr));
    expect(await logs.sessionIds()).toHaveLength(1);
  });

  it("with no session in the caller's workspace exits non-zero, creates nothing, says how to start", async () => {
    const { cli, logs, workspace } = await cliContext();
    const result = await cli(["run", "-c", "hello"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("No earlier session in the workspace");
    expect(result.stderr).toContain('tapedeck run "prompt"');
    expect(await logs.sessionIds()).toEqual([]);
    expect(workspace.home).toBeTruthy();
  });
});

describe("tapedeck run --goal", () => {
  it("records the goal, sends it to the model, and sessions show prints it", async () => {
    const { cli, server, workspace } = await cliContext(
      script({ instructions: "Current goal: Ship the parser" })
        .user("start")
        .goal("Ship the parser")
        .text("On it")
        .end()
        .build(),
    );
    const result = await cli(["run", "--goal", "Ship the parser", "start"]);
    expect(server?.failures()).toEqual([]);
    expect(result).toMatchObject({ code: 0, stdout: "On it\n" });
    const sessionId = idOf(result.stderr);
    const log = await logOf(workspace.home, sessionId);
    expect(log.filter((event) => event.type === "goal/set")).toMatchObject([
      { goal: "Ship the parser" },
    ]);
    const shown = await cli(["sessions", "show", sessionId]);
    expect(shown.stdout).toContain("goal: Ship the parser");
  });
});
