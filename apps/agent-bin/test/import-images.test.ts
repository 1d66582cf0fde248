/**
 * Inline images over the built binary: `tapedeck import` keeps a prompt's image (Claude Code
 * `image` block, opencode image file part, Gemini CLI `inlineData`) as a blob attachment (they
 * were dropped), `sessions verify` passes, and `sessions export --html` embeds it as a data URL
 * (the file stays self-contained).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { binaryEnv, runCli, testWorkspace } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(2500, 6)]);
const b64 = png.toString("base64");

/** The Claude Code transcript (one prompt with an image) of session `id` working in `cwd`. */
function claudeTranscript(id: string, cwd: string): string {
  const entry = {
    sessionId: id,
    cwd,
    isSidechain: false,
    version: "2.1.0",
    type: "user",
    uuid: `${id}-1`,
    parentUuid: null,
    timestamp: "2026-01-02T10:00:01.000Z",
    message: {
      role: "user",
      content: [
        { type: "text", text: "what is on this screen?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64 } },
      ],
    },
  };
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Writes `text` at `file` (under the workspace root) and imports `importPath` (default that file)
 * as `source`; checks verify, the prompt's attachment and the HTML export.
 */
async function importsImage(
  source: string,
  file: string,
  text: (cwd: string) => string,
  promptText: string,
  importPath = file,
): Promise<void> {
  const workspace = await testWorkspace();
  const env = binaryEnv(workspace);
  const cwd = workspace.cwd;
  const at = path.join(workspace.root, file);
  mkdirSync(path.dirname(at), { recursive: true });
  writeFileSync(at, text(cwd));
  const target = path.join(workspace.root, importPath);
  const imported = await runCli(["import", source, target, "--json"], { cwd, env });
  expect(imported.code, imported.stderr).toBe(0);
  const [sessionId] = (
    JSON.parse(imported.stdout) as { files: { sessions: { sessionId: string }[] }[] }
  ).files.flatMap((entry) => entry.sessions.map((session) => session.sessionId));
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
    content: promptText,
    attachments: [{ bytes: png.length, mediaType: "image/png" }],
  });

  const html = path.join(workspace.root, "out.html");
  const exported = await runCli(["sessions", "export", sessionId!, "--html", "-o", html], {
    cwd,
    env,
  });
  expect(exported.code, exported.stderr).toBe(0);
  expect(readFileSync(html, "utf8")).toContain(`src="data:image/png;base64,${b64}"`);
}

const documents: Record<string, unknown> = {
  opencode: {
    info: { id: "ses_bin_img", directory: "/w", time: { created: 1780154575515 } },
    messages: [
      {
        info: {
          id: "msg_u",
          sessionID: "ses_bin_img",
          role: "user",
          time: { created: 1780154575515 },
        },
        parts: [
          { id: "p1", type: "text", text: "what is on this screen?" },
          {
            id: "p2",
            type: "file",
            mime: "image/png",
            filename: "screen.png",
            url: `data:image/png;base64,${b64}`,
          },
        ],
      },
    ],
  },
  gemini: {
    sessionId: "6f9a0d3e-aaaa-4bbb-8ccc-000000000b1e",
    projectHash: "b1e",
    startTime: "2026-01-02T10:00:00.000Z",
    messages: [
      {
        id: "m1",
        type: "user",
        timestamp: "2026-01-02T10:00:01.000Z",
        content: [
          { text: "what is on this screen?" },
          { inlineData: { mimeType: "image/png", data: b64 } },
        ],
      },
    ],
  },
};

const json = (source: string) => () => JSON.stringify(documents[source]);

describe("tapedeck import keeps inline images", () => {
  it("a Claude Code prompt's image becomes a blob attachment; verify passes; the HTML export embeds it", async () => {
    const id = "bbbbbbbb-1111-4111-8111-000000000001";
    await importsImage(
      "claude-code",
      `claude/-work/${id}.jsonl`,
      (cwd) => claudeTranscript(id, cwd),
      "what is on this screen?\n[image]",
      "claude/-work",
    );
  });

  it("an opencode prompt's image file part (data URL) becomes a blob attachment; verify passes; the HTML export embeds it", async () => {
    await importsImage(
      "opencode",
      "opencode/ses_bin_img.json",
      json("opencode"),
      "what is on this screen?\n[file: screen.png]",
    );
  });

  it("a Gemini CLI prompt's inlineData image becomes a blob attachment; verify passes; the HTML export embeds it", async () => {
    await importsImage(
      "gemini",
      "gemini/tmp/b1e/chats/session-2026-01-02T10-00-b1e.json",
      json("gemini"),
      "what is on this screen?",
    );
  });
});
