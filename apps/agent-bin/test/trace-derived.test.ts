import { scriptedRecording } from "@tapedeck/llm-replay";
import { homeLogs, type TempWorkspace, tempWorkspace } from "@tapedeck/test-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inProcessCli } from "./in-process-cli";

let workspace: TempWorkspace;
beforeEach(async () => {
  workspace = await tempWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const SESSION = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";

function cli(args: string[]) {
  return inProcessCli({ env: { TAPEDECK_HOME: workspace.home }, cwd: workspace.cwd })(args);
}

describe("tapedeck sessions trace", () => {
  it("a user message is cited by every model call that saw it and by what each answered", async () => {
    const log = scriptedRecording({ sessionId: SESSION, cwd: workspace.cwd })
      .system("be brief")
      .user("what is in app.log?")
      .toolCall("read_file", { path: "app.log" })
      .toolResult("error at line 3")
      .text("One error, at line 3.")
      .end()
      .build();
    homeLogs(workspace.home).write(log.jsonl());
    const seqOf = (type: string, nth = 0) =>
      log.events.filter((event) => event.type === type)[nth]?.seq ?? -1;
    const user = log.events.find((event) => event.type === "message" && event.role === "user");

    const trace = await cli(["sessions", "trace", SESSION, String(user?.seq)]);
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout).not.toContain("cited by: nothing");
    expect(trace.stdout).toContain(`cited by #${seqOf("model/request")} model/request`);
    expect(trace.stdout).toMatch(
      new RegExp(`cited by #${seqOf("model/request", 1)} model/request.*\\[model input\\]`),
    );
    expect(trace.stdout).toMatch(
      new RegExp(`cited by #${seqOf("function_call")} .*\\[answer, depth 2\\]`),
    );

    const json = await cli([
      "sessions",
      "trace",
      SESSION,
      String(seqOf("function_call")),
      "--json",
    ]);
    expect(JSON.parse(json.stdout).sources).toEqual([
      expect.objectContaining({ seq: seqOf("model/request"), via: "answer" }),
    ]);
  });
});
