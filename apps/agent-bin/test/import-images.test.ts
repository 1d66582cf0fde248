/**
 * Inline images over the built binary: `tapedeck import claude-code` keeps a prompt's image as a
 * blob attachment (it was dropped), `sessions verify` passes, and `sessions export --html` embeds it
 * as a data URL (the file stays self-contained).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { binaryEnv, runCli, testWorkspace } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(2000, 5)]);

describe("tapedeck import keeps inline images", () => {
  it("a Claude Code prompt's image becomes a blob attachment; verify passes; the HTML export embeds it", async () => {
    const workspace = await testWorkspace();
    const env = binaryEnv(workspace);
    const cwd = workspace.cwd;
    const id = "bbbbbbbb-1111-4111-8111-000000000001";
    const project = path.join(workspace.root, "claude", "-work");
    mkdirSync(project, { recursive: true });
    const common = { sessionId: id, cwd, isSidechain: false, version: "2.1.0" };
    writeFileSync(
      path.join(project, `${id}.jsonl`),
      `${JSON.stringify({
        ...common,
        type: "user",
        uuid: `${id}-1`,
        parentUuid: null,
        timestamp: "2026-01-02T10:00:01.000Z",
        message: {
          role: "user",
          content: [
            { type: "text", text: "what is on this screen?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: png.toString("base64") },
            },
          ],
        },
      })}\n`,
    );
    const imported = await runCli(["import", "claude-code", project, "--json"], { cwd, env });
    expect(imported.code, imported.stderr).toBe(0);
    const [sessionId] = (
      JSON.parse(imported.stdout) as { files: { sessions: { sessionId: string }[] }[] }
    ).files.flatMap((file) => file.sessions.map((session) => session.sessionId));
    expect(sessionId).toBeDefined();
    const verify = await runCli(["sessions", "verify", "--all"], { cwd, env });
    expect(verify, verify.stdout).toMatchObject({ code: 0 });

    const jsonl = path.join(workspace.root, "out.jsonl");
    expect((await runCli(["sessions", "export", sessionId!, "-o", jsonl], { cwd, env })).code).toBe(
      0,
    );
    const prompt = readFileSync(jsonl, "utf8")
      .split("\n")
      .find((line) => line.includes('"role":"user"'));
    expect(JSON.parse(prompt!)).toMatchObject({
      content: "what is on this screen?\n[image]",
      attachments: [{ bytes: png.length, mediaType: "image/png" }],
    });

    const html = path.join(workspace.root, "out.html");
    const exported = await runCli(["sessions", "export", sessionId!, "--html", "-o", html], {
      cwd,
      env,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).toContain(
      `src="data:image/png;base64,${png.toString("base64")}"`,
    );
  });
});
