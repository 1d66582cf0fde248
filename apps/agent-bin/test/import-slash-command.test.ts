/**
 * A Claude Code 1.0.x session started with a slash command (`/init`), imported over the built
 * binary: the prompt the command expanded to is the user message (the model that continues the
 * session is sent what Claude Code's model was sent), and the typed command is the title.
 * The transcript is written here in the shape Claude Code 1.0.x writes (command entry, then the
 * expansion as an `isMeta` entry hanging from it).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cliContext, agentScript as script } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const id = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
const expansion = "Please analyze this codebase and create a CLAUDE.md file for future agents.";

function transcript(cwd: string): string {
  const common = {
    sessionId: id,
    cwd,
    isSidechain: false,
    userType: "external",
    version: "1.0.35",
  };
  const lines = [
    {
      ...common,
      type: "user",
      uuid: "c1",
      parentUuid: null,
      timestamp: "2025-07-01T10:00:00.000Z",
      message: {
        role: "user",
        content:
          "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
      },
    },
    {
      ...common,
      type: "user",
      uuid: "c2",
      parentUuid: "c1",
      isMeta: true,
      timestamp: "2025-07-01T10:00:00.100Z",
      message: { role: "user", content: [{ type: "text", text: expansion }] },
    },
    {
      ...common,
      type: "assistant",
      uuid: "c3",
      parentUuid: "c2",
      timestamp: "2025-07-01T10:00:05.000Z",
      message: {
        id: "msg_1",
        role: "assistant",
        model: "claude-sonnet-4-20250514",
        content: [{ type: "text", text: "I created CLAUDE.md." }],
      },
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

describe("tapedeck import of a slash-command session", () => {
  it("imports the expanded prompt as the user message the model sees, titled by the command", async () => {
    const recording = script().user("now add tests").text("Added.").end().build();
    const { workspace, server, cli } = await cliContext(recording, { match: "loose" });
    const project = path.join(workspace.root, "claude", "-work");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, `${id}.jsonl`), transcript(workspace.cwd));
    const imported = await cli(["import", "claude-code", path.join(workspace.root, "claude")]);
    expect(imported.code, imported.stderr).toBe(0);

    const list = await cli(["sessions", "list", "--all", "--json"]);
    const [summary] = JSON.parse(list.stdout) as { id: string; title: string }[];
    expect(summary?.title).toBe("/init");

    const continued = await cli(["run", "-r", summary!.id, "now add tests"]);
    expect(continued, continued.stderr).toMatchObject({ code: 0, stdout: "Added.\n" });
    const [request] = server.requests();
    const users = request!.input.filter(
      (item) => item.type === "message" && item.role === "user",
    ) as { content: unknown }[];
    expect(users.map((item) => JSON.stringify(item.content))).toEqual([
      JSON.stringify(expansion),
      JSON.stringify("now add tests"),
    ]);
  });
});
