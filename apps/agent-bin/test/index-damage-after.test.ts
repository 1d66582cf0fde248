/**
 * Damage that comes after a log was indexed (issue #28 item 1), over the real binary: `sessions
 * search` and `sessions list` serve only what a replay accepts, whatever the order of damage and
 * indexing.
 */
import { appendFile, readFile, utimes, writeFile } from "node:fs/promises";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { binaryEnv, homeLogs, runCli, tempWorkspace } from "@tapedeck/test-harness";
import { describe, expect, it, onTestFinished } from "vitest";

const ID = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";

async function setup() {
  const workspace = await tempWorkspace();
  onTestFinished(() => workspace.cleanup());
  const env = binaryEnv(workspace);
  const cli = (args: string[]) => runCli(args, { cwd: workspace.cwd, env, timeoutMs: 20_000 });
  const log = eventLogBuilder({ sessionId: ID, cwd: workspace.cwd })
    .system("s")
    .turn()
    .user("first pangolin")
    .call("ls", {}, "c1")
    .output("x")
    .assistant("second pangolin")
    .end();
  const logs = homeLogs(workspace.home);
  logs.write(log.jsonl());
  return { cli, log, file: logs.pathOf(ID) };
}

async function listed(cli: (args: string[]) => Promise<{ stdout: string }>) {
  const rows = JSON.parse((await cli(["sessions", "list", "--all", "--json"])).stdout) as {
    id: string;
    status: string;
    damage?: { code: string };
  }[];
  return rows.find((row) => row.id === ID);
}

describe("damage after indexing (issue #28)", () => {
  it("an orphan output and a user message appended to an indexed log are not served", async () => {
    const { cli, log, file } = await setup();
    expect((await cli(["index"])).code).toBe(0);
    expect((await listed(cli))?.status).toBe("completed");
    const before = log.events.length;
    const runId = log.events[0]!.runId;
    log.push({
      type: "function_call_output",
      runId,
      callId: "c1",
      output: "orphaned pangolin",
      isError: false,
      sourceEventSeqs: [4],
    });
    log.push({ type: "message", runId, role: "user", content: "appended pangolin" });
    // By another program: no journal record.
    await appendFile(
      file,
      log.events
        .slice(before)
        .map((event) => `${JSON.stringify(event)}\n`)
        .join(""),
    );
    const indexed = await cli(["index"]);
    expect(indexed.stdout).toContain(`Damaged: session ${ID}`);
    expect(indexed.stdout).toContain("TURN_NESTING");
    const search = await cli(["sessions", "search", "--all", "pangolin"]);
    expect(search.stdout).toContain(`${ID} #3 message`);
    expect(search.stdout).toContain(`${ID} #6 message`);
    expect(search.stdout).not.toContain("#8");
    expect(search.stdout).not.toContain("#9");
    expect(await listed(cli)).toMatchObject({
      status: "damaged",
      damage: { code: "TURN_NESTING" },
    });
    const verify = await cli(["sessions", "verify", ID]);
    expect(verify.code).toBe(1);
    expect(verify.stdout + verify.stderr).toContain("TURN_NESTING");
  });

  it("a same-length edit in place (a seq gap) is seen by the next index", async () => {
    const { cli, file } = await setup();
    expect((await cli(["index"])).code).toBe(0);
    const text = await readFile(file, "utf8");
    const edited = text.replace('"seq":6,', '"seq":9,');
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    await writeFile(file, edited);
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    await cli(["index"]);
    expect(await listed(cli)).toMatchObject({ status: "damaged", damage: { code: "SEQ_GAP" } });
    const search = await cli(["sessions", "search", "--all", "pangolin"]);
    expect(search.stdout).toContain(`${ID} #3 message`);
    expect(search.stdout).not.toContain(`${ID} #6`);
  });
});
