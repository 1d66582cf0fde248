import { existsSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { homeLogs } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { hostileModel } from "./hostile";

/** The tool outputs of every session in `home`, in order (the logs read through the store). */
async function toolOutputs(home: string): Promise<{ output: string; isError: boolean }[]> {
  const logs = homeLogs(home);
  const outputs: { output: string; isError: boolean }[] = [];
  for (const sessionId of await logs.sessionIds())
    for (const event of await logs.lines(sessionId))
      if (event.type === "function_call_output")
        outputs.push({ output: String(event.output ?? ""), isError: event.isError === true });
  return outputs;
}

describe("tools a hostile model calls (spawned CLI, scripted model)", () => {
  it("write_file to a dangling symlink pointing outside is refused under --approve (item 2)", async () => {
    const attack = await hostileModel([
      { toolCalls: [{ name: "write_file", arguments: { path: "dangle", content: "pwned" } }] },
      { text: "done" },
    ]);
    const outside = path.join(attack.workspace.root, "outside");
    await mkdir(outside);
    await symlink(path.join(outside, "new.txt"), path.join(attack.workspace.cwd, "dangle"));
    const result = await attack.cli(["run", "--approve", "write it"]);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    const [output] = await toolOutputs(attack.workspace.home);
    expect(output?.isError).toBe(true);
    expect(output?.output).toContain("leads through a symlink out of the workspace");
    expect(output?.output).not.toContain("new.txt");
  });

  it("with the home inside the workspace, read_file, list_dir and search_files never reach it (item 3)", async () => {
    const attack = await hostileModel([
      {
        toolCalls: [
          { name: "list_dir", arguments: { path: ".tapedeck/sessions" } },
          { name: "read_file", arguments: { path: ".tapedeck/config.json" } },
          { name: "search_files", arguments: { pattern: "workspaceId" } },
        ],
      },
      { text: "done" },
    ]);
    // HOME is the workspace (no git repository): the default home ~/.tapedeck lies inside it.
    const result = await attack.cli(["run", "--approve", "look around"], {
      cwd: attack.workspace.root,
      env: { TAPEDECK_HOME: "" },
    });
    expect(result.code).toBe(0);
    const home = path.join(attack.workspace.root, ".tapedeck");
    const outputs = await toolOutputs(home);
    // The calls run in parallel: their outputs are logged in the order they finish.
    expect(outputs).toHaveLength(3);
    expect(outputs.filter((output) => output.isError)).toEqual([
      expect.objectContaining({ output: expect.stringContaining("lies in the Tapedeck home") }),
      expect.objectContaining({ output: expect.stringContaining("lies in the Tapedeck home") }),
    ]);
    expect(outputs.filter((output) => !output.isError)).toEqual([
      { output: "No matches.", isError: false },
    ]);
  });

  it("a catastrophic search pattern does not freeze the CLI: Ctrl-C ends the run within a second (item 4)", async () => {
    const attack = await hostileModel([
      { toolCalls: [{ name: "search_files", arguments: { pattern: "(a+)+$" } }] },
      { text: "never reached" },
    ]);
    await writeFile(path.join(attack.workspace.cwd, "a.txt"), `${"a".repeat(60)}!\n`);
    let interruptedAt = 0;
    const result = await attack.cli(["run", "search"], {
      onStderr: (stderr, child) => {
        if (interruptedAt === 0 && stderr.includes("● Search")) {
          // Give the search time to be deep in backtracking first.
          interruptedAt = -1;
          setTimeout(() => {
            interruptedAt = Date.now();
            child.kill("SIGINT");
          }, 500);
        }
      },
    });
    const elapsed = Date.now() - interruptedAt;
    expect(result.code).toBe(130);
    expect(elapsed).toBeLessThan(1_000);
  });

  it("secrets never reach a command's environment, the log or the model, /proc/$PPID/environ included (item 5)", async () => {
    const attack = await hostileModel([
      {
        toolCalls: [
          {
            name: "run_command",
            arguments: { command: "env; tr '\\0' '\\n' < /proc/$PPID/environ" },
          },
        ],
      },
      { text: "done" },
    ]);
    const key = "sk-live-SECRET-KEY-0123456789";
    const token = "web-token-SECRET-abcdef";
    const password = "url-pass-SECRET-987";
    const result = await attack.cli(["run", "--approve", "show env"], {
      env: {
        OPENAI_API_KEY: key,
        TAPEDECK_WEB_TOKEN: token,
        OPENAI_BASE_URL: attack.server.url.replace("http://", `http://proxy:${password}@`),
      },
    });
    expect(result.code).toBe(0);
    const [output] = await toolOutputs(attack.workspace.home);
    expect(output?.output).toContain("[redacted OPENAI_API_KEY]");
    const everything = [
      result.stdout,
      result.stderr,
      [...(await homeLogs(attack.workspace.home).all()).values()].join(""),
      JSON.stringify(attack.server.requests()),
    ].join("\n");
    for (const secret of [key, token, password]) expect(everything).not.toContain(secret);
  });

  it("a tool call with an empty name gets an error output and the other calls still run (item 8)", async () => {
    const attack = await hostileModel([
      {
        toolCalls: [
          { name: "", arguments: "{}" },
          { name: "list_dir", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    await writeFile(path.join(attack.workspace.cwd, "visible.txt"), "x");
    const result = await attack.cli(["run", "go"]);
    expect(result).toMatchObject({ code: 0, stdout: "done\n" });
    const outputs = await toolOutputs(attack.workspace.home);
    expect(outputs).toHaveLength(2);
    expect(outputs).toContainEqual({
      output: expect.stringContaining("This tool call had an empty name"),
      isError: true,
    });
    expect(outputs).toContainEqual({ output: "visible.txt", isError: false });
  });
});
