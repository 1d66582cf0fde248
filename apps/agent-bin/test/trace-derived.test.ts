import path from "node:path";
import { scriptedRecording } from "@tapedeck/llm-replay";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../src/cli/io";
import { main } from "../src/cli/main";
import { tempWorkspace } from "./binary";

type Workspace = Awaited<ReturnType<typeof tempWorkspace>>;
let workspace: Workspace;
beforeEach(async () => {
  workspace = await tempWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const SESSION = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { TAPEDECK_HOME: workspace.home },
    cwd: workspace.cwd,
    interactive: false,
    ask: async () => "",
    onInterrupt: () => undefined,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
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
    log.write(path.join(workspace.home, "sessions", `${SESSION}.jsonl`));
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
