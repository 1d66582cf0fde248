import { writeFile } from "node:fs/promises";
import path from "node:path";
import { type ReplayServer, startReplayServer } from "@tapedeck/llm-replay";
import { exampleServerCommand } from "@tapedeck/mcp-example";
import {
  binaryEnv,
  homeLogs,
  runCli,
  agentScript as script,
  type TempWorkspace,
  tapedeckBinary,
  tempWorkspace,
} from "@tapedeck/test-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let workspace: TempWorkspace;
let env: Record<string, string>;

/** `tapedeck run ARGS` against a replay server that plays `recording` (requests not compared). */
async function run(
  recording: ReturnType<ReturnType<typeof script>["build"]>,
  args: string[],
  terminal?: { answer: string },
) {
  // The MCP tools change the request (tool list, outputs): matching is off, the log is checked.
  const server: ReplayServer = await startReplayServer(recording.recording(), { match: "off" });
  try {
    return await runCli(["run", ...args], {
      cwd: workspace.cwd,
      env: { ...env, OPENAI_BASE_URL: server.url },
      ...(terminal === undefined ? {} : { terminal }),
    });
  } finally {
    await server.close();
  }
}

const logOf = (sessionId: string) => homeLogs(workspace.home).lines(sessionId);

const sessionOf = (stderr: string) => /session (\S+) · \w+/.exec(stderr)?.[1] ?? "";

beforeAll(async () => {
  workspace = await tempWorkspace();
  env = binaryEnv(workspace);
  const example = exampleServerCommand();
  await writeFile(
    path.join(workspace.root, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        tapedeck: {
          command: process.execPath,
          args: [tapedeckBinary(), "mcp"],
          env: { TAPEDECK_HOME: workspace.home },
        },
        example: { command: example.command, args: example.args },
      },
    }),
  );
});
afterAll(() => workspace.cleanup());

describe("tapedeck run --mcp-config", () => {
  it("searches its own history through tapedeck mcp, survives a server crash mid-call, and reconnects on resume", async () => {
    const first = await run(
      script().user("where is the zeppelin config").text("In config/zeppelin.toml.").end().build(),
      ["where is the zeppelin config"],
    );
    expect(first.code, first.stderr).toBe(0);
    const earlier = sessionOf(first.stderr);

    const second = await run(
      script()
        .user("what did we say about the zeppelin?")
        .toolCall("mcp__tapedeck__search_events", { text: "zeppelin", types: ["message"] })
        .toolResult("(recorded)")
        .toolCall("mcp__example__crash", {})
        .toolResult("(recorded)", { isError: true })
        .toolCall("mcp__example__echo", { text: "after the crash" })
        .toolResult("(recorded)")
        .text("It is in config/zeppelin.toml.")
        .end()
        .build(),
      ["--approve", "--mcp-config", "../mcp.json", "what did we say about the zeppelin?"],
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe("It is in config/zeppelin.toml.\n");
    // The servers' own stderr is kept (its tail explains a crash), never passed through.
    expect(second.stdout).not.toContain("example-mcp:");
    expect(second.stderr).not.toMatch(/^example-mcp:/m);
    const current = sessionOf(second.stderr);
    const log = await logOf(current);
    const outputs = log.filter((event) => event.type === "function_call_output");
    expect(outputs).toHaveLength(3);
    expect(outputs[0]).toMatchObject({ isError: false });
    expect(outputs[0]?.output).toContain(`session ${earlier} seq`);
    expect(outputs[0]?.output).toContain("In config/«zeppelin».toml.");
    expect(outputs[1]).toMatchObject({ isError: true });
    expect(outputs[1]?.output).toMatch(
      /^Error: MCP server "example" stopped during the call to crash/,
    );
    expect(outputs[2]).toMatchObject({ isError: false, output: "echo: after the crash" });
    const recorded = log.find((event) => event.type === "x-mcp/servers");
    expect(recorded?.servers).toEqual([
      {
        transport: "stdio",
        name: "tapedeck",
        command: process.execPath,
        args: [tapedeckBinary(), "mcp"],
        envNames: ["TAPEDECK_HOME"],
      },
      {
        transport: "stdio",
        name: "example",
        command: exampleServerCommand().command,
        args: exampleServerCommand().args,
        envNames: [],
      },
    ]);
    expect(JSON.stringify(log)).not.toContain(`"TAPEDECK_HOME":"${workspace.home}"`);
    expect(log.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });

    // Resumed without --mcp-config: the recorded servers (recorded by this home from the
    // person's config) connect again once the person allows it at the prompt (their variables
    // from this process's environment), and nothing new is recorded.
    const third = await run(
      script()
        .user("echo once more")
        // A call id of its own: the scripted ids of a new script would repeat the earlier run's.
        .toolCall("mcp__example__echo", { text: "resumed" }, { callId: "call_resumed_echo" })
        .toolResult("(recorded)")
        .text("Done.")
        .end()
        .build(),
      ["-r", current, "echo once more"],
      { answer: "y" },
    );
    expect(third.code, third.stdout).toBe(0);
    expect(third.stdout).toContain("Allow start the MCP servers this session recorded: tapedeck:");
    const resumed = await logOf(current);
    const last = resumed.filter((event) => event.type === "function_call_output").at(-1);
    expect(last).toMatchObject({ isError: false, output: "echo: resumed" });
    expect(resumed.filter((event) => event.type === "x-mcp/servers")).toHaveLength(1);
  });

  it("refuses a config file that is not Claude Code's shape, creating no session", async () => {
    await writeFile(path.join(workspace.root, "bad.json"), JSON.stringify({ servers: {} }));
    const before = await homeLogs(workspace.home).sessionIds();
    const result = await run(script().user("x").text("y").end().build(), [
      "--mcp-config",
      "../bad.json",
      "x",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("bad.json: mcpServers:");
    expect(await homeLogs(workspace.home).sessionIds()).toEqual(before);
  });
});
