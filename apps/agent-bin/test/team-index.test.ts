import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { createTestDatabase, freePort } from "@tapedeck/postgres-server";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { homeLogs, type TempWorkspace, tempWorkspace } from "@tapedeck/test-harness";
import { afterEach, describe, expect, inject, it } from "vitest";
import { BUILD_OUTPUT, writeBuildOutputLog } from "./build-output-log";
import { inProcessCli } from "./in-process-cli";

const PARENT = "0193b6e2-7c1a-7d3e-9f00-0000000000a1";
const CHILD = "0193b6e2-7c1a-7d3e-9f00-0000000000b2";
const RUNNER = "0193c000-0000-7000-8000-0000000000c3";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function machine(): Promise<TempWorkspace> {
  const workspace = await tempWorkspace();
  cleanups.push(workspace.cleanup);
  return workspace;
}

function cli(workspace: TempWorkspace, url: string) {
  return inProcessCli({
    env: { TAPEDECK_HOME: workspace.home, TAPEDECK_INDEX_URL: url },
    cwd: workspace.cwd,
  });
}

describe("tapedeck with TAPEDECK_INDEX_URL", () => {
  it("two machines push at once; each sees the other's sessions without their logs", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = await machine();
    const runner = await machine();
    const parent = eventLogBuilder({ sessionId: PARENT, cwd: laptop.cwd })
      .system("You are Tapedeck.")
      .turn()
      .user("Find the needle in the 数据库 haystack")
      .call("search_files", { pattern: "needle" })
      .output("src/hay.ts:3: const needle = 1;")
      .assistant("The needle is in src/hay.ts.")
      .end();
    homeLogs(laptop.home).write(parent.jsonl());
    const child = eventLogBuilder({
      sessionId: CHILD,
      cwd: laptop.cwd,
      parent: { sessionId: PARENT, seq: 7 },
    })
      .turn()
      .user("Now move the needle")
      .assistant("Moved.")
      .end();
    homeLogs(laptop.home).write(child.jsonl());
    const ci = eventLogBuilder({ sessionId: RUNNER, cwd: runner.cwd })
      .turn()
      .user("run the flaky test again")
      .assistant("It passed.")
      .end();
    homeLogs(runner.home).write(ci.jsonl());

    const onLaptop = cli(laptop, database.url);
    const onRunner = cli(runner, database.url);
    const [pushedLaptop, pushedRunner] = await Promise.all([
      onLaptop(["index"]),
      onRunner(["index"]),
    ]);
    expect(pushedLaptop.code, pushedLaptop.stderr).toBe(0);
    expect(pushedLaptop.stdout).toContain("2 added");
    expect(pushedLaptop.stdout).toContain(`${parent.events.length + child.events.length} events`);
    expect(pushedRunner.code, pushedRunner.stderr).toBe(0);
    // Pushing again sends nothing.
    expect((await onLaptop(["index"])).stdout).toContain("0 events");

    const stats = await onRunner(["index", "--stats"]);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/total\s+3\s+/);

    // The runner's own workspace holds only its session; --all shows the laptop's too.
    const own = await onRunner(["sessions", "list"]);
    expect(own.stdout).toContain("run the flaky test");
    expect(own.stdout).not.toContain("needle");
    const everyone = await onRunner(["sessions", "list", "--all"]);
    expect(everyone.stdout).toContain("Find the needle");
    const search = await onRunner(["sessions", "search", "--all", "数据"]);
    expect(search.stdout).toContain(`${PARENT} #3 message: Find the needle in the [数据]库`);
    const show = await onRunner(["sessions", "show", CHILD.slice(0, 36)]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`fork of ${PARENT}@7`);
    expect(show.stdout).toContain("Now move the needle");
    const trace = await onRunner(["sessions", "trace", PARENT, "4"]);
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout).toContain("#4");
    const lineage = await onRunner(["sessions", "lineage", CHILD]);
    expect(lineage.stdout).toContain(`↑ ${PARENT}`);
    const exported = await onRunner(["sessions", "export", CHILD]);
    expect(exported.stdout.trim().split("\n")).toHaveLength(1 + 7 + child.events.length);
  });

  it("a session continued differently on two machines: the second push says it made a fork", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = await machine();
    const runner = await machine();
    const id = "0193b6e2-7c1a-7d3e-9f00-0000000000d4";
    const continued = (next: string, runId: string) =>
      eventLogBuilder({ sessionId: id, cwd: "/work/shared", start: new Date(0) })
        .turn({ runId: "shared" })
        .user("plan the migration")
        .assistant("three steps")
        .end()
        .turn({ runId })
        .user(next)
        .assistant("ok")
        .end();
    homeLogs(laptop.home).write(continued("use a shadow table", "laptop").jsonl());
    homeLogs(runner.home).write(continued("take the downtime", "runner").jsonl());
    expect((await cli(laptop, database.url)(["index"])).stderr).toBe("");
    const pushed = await cli(runner, database.url)(["index"]);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toMatch(
      new RegExp(
        `^Session ${id} was continued differently here and on .+ \\(the events differ from seq 5 on\\): this machine's continuation is in the team index as [0-9a-f-]{36}, a fork of ${id} at seq 4\\.\n$`,
      ),
    );
    const everyone = await cli(runner, database.url)(["sessions", "list", "--all"]);
    expect(everyone.stdout).toContain("plan the migration");
    expect(everyone.stdout).toContain("take the downtime");
  });

  it("a session whose output is in a blob (compacted) reads whole on another machine, which has no blob", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = await machine();
    const runner = await machine();
    const id = "0193b6e2-7c1a-7d3e-9f00-0000000000e5";
    writeBuildOutputLog(laptop.home, id, laptop.cwd);
    const onLaptop = cli(laptop, database.url);
    const compacted = await onLaptop(["storage", "compact", "--older-than", "0s"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(existsSync(path.join(laptop.home, "sessions", `${id}.jsonl.zst`))).toBe(true);
    const blobs = readdirSync(path.join(laptop.home, "blobs", "sha256"), { recursive: true });
    expect(blobs.some((name) => /^[0-9a-f]{2}\/[0-9a-f]{62}\.zst$/.test(String(name)))).toBe(true);
    const pushed = await onLaptop(["index"]);
    expect(pushed.code, pushed.stderr).toBe(0);

    const onRunner = cli(runner, database.url);
    expect(existsSync(path.join(runner.home, "blobs"))).toBe(false);
    const search = await onRunner(["sessions", "search", "--all", "zanzibarite"]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain(id);
    const exported = await onRunner(["sessions", "export", id]);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const result = lines.find((line) => line.type === "function_call_output");
    expect(result?.output).toBe(BUILD_OUTPUT);
    expect(result?.outputBlob).toBeUndefined();
  });

  it("says in one sentence that the team index cannot be reached", async () => {
    const laptop = await machine();
    const port = await freePort();
    const result = await cli(laptop, `postgres://me:secret@127.0.0.1:${port}/team`)(["index"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Cannot reach the team index at 127.0.0.1:${port}/team`);
    expect(result.stderr).not.toContain("secret");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});
