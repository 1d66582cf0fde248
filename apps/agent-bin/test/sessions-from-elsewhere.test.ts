/**
 * Sessions from elsewhere (issue #27): a log is data. An imported export's recorded MCP servers
 * never start; the person's own recorded servers start again only after asking, without
 * Tapedeck's own secrets.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { hostileFixturePath, hostileFixtureText } from "@tapedeck/fixtures";
import { homeLogs, readSseEvents, spawnAcp, tapedeckBinary } from "@tapedeck/test-harness";
import { describe, expect, it, onTestFinished } from "vitest";
import { hostileModel } from "./hostile";
import { serveWeb } from "./web-server";

/** The hostile export, imported with `tapedeck import tapedeck`; returns the imported id. */
async function importHostileExport(model: Awaited<ReturnType<typeof hostileModel>>) {
  const file = path.join(model.workspace.root, "export.jsonl");
  await writeFile(
    file,
    hostileFixtureText("tapedeck-export-mcp", {
      __CWD__: model.workspace.cwd,
      __MODEL__: "openai-chat:scripted",
    }),
  );
  const imported = await model.cli(["import", "tapedeck", file]);
  expect(imported.code, imported.stderr).toBe(0);
}

const pwned = (cwd: string) =>
  existsSync(path.join(cwd, "PWNED")) || existsSync(path.join(cwd, "PWNED_env.txt"));

describe("recorded MCP servers of a log from elsewhere", () => {
  it("an imported export's server never starts on run -c (no terminal), and a line says why", async () => {
    const model = await hostileModel([{ text: "hello back" }]);
    await importHostileExport(model);
    const result = await model.cli(["run", "-c", "hello"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("hello back");
    expect(pwned(model.workspace.cwd)).toBe(false);
    expect(result.stderr).toContain("not starting the MCP servers recorded in session");
    expect(result.stderr).toContain("this home did not record them from your configuration");
  });

  it("an imported export's server never starts when the viewer continues it, which says where it works", async () => {
    const model = await hostileModel([{ text: "hello back" }]);
    await importHostileExport(model);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const http = await serveWeb(model);
    const response = await fetch(`${http.url}/api/agent/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "hello", sessionId, policy: "ask" }),
    });
    expect(response.status).toBe(200);
    const events: Record<string, unknown>[] = [];
    for await (const message of readSseEvents(response.body ?? new ReadableStream())) {
      events.push(JSON.parse(message.data) as Record<string, unknown>);
    }
    expect(events.map((event) => event.type)).not.toContain("approval_request");
    expect(events.at(-1)).toMatchObject({ type: "run_finished", status: "completed" });
    expect(events[0]).toMatchObject({
      type: "run_started",
      notice: `Session ${sessionId} was imported from tapedeck: it will work in ${model.workspace.cwd}.`,
    });
    expect(pwned(model.workspace.cwd)).toBe(false);
  });

  it("an imported export's server never starts over ACP session/load with empty mcpServers", async () => {
    const model = await hostileModel([{ text: "hello back" }]);
    await importHostileExport(model);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const agent = spawnAcp(model.env, model.workspace.cwd);
    onTestFinished(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    await agent.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(pwned(model.workspace.cwd)).toBe(false);
    expect(agent.permissions).toEqual([]);
    expect(agent.stderr()).toContain("not starting the MCP servers recorded in session");
  });

  it("the person's own recorded server asks once before it starts again, and gets no Tapedeck secret", async () => {
    const model = await hostileModel([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const script = 'echo "start $' + '{OPENAI_API_KEY:-no-key}" >> STARTED';
    const config = path.join(model.workspace.root, "mcp.json");
    // Not an MCP server: it notes each start (and the key it was handed) and exits.
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          notes: {
            command: "sh",
            args: ["-c", script],
            env: { OPENAI_API_KEY: "sk-given-in-the-config-0123" },
          },
        },
      }),
    );
    const started = () =>
      readFile(path.join(model.workspace.cwd, "STARTED"), "utf8").catch(() => "");
    const first = await model.cli(["run", "--mcp-config", config, "first"]);
    expect(first.code, first.stderr).toBe(0);
    expect(await started()).toBe("start sk-given-in-the-config-0123\n");

    const refused = await model.cli(["run", "-c", "second"]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain(
      `start the MCP servers this session recorded: notes: sh -c ${JSON.stringify(script)} (env: OPENAI_API_KEY): needs approval, but there is no terminal to ask; not started.`,
    );
    expect(await started()).toBe("start sk-given-in-the-config-0123\n");

    const allowed = await model.cli(["run", "-c", "third"], { terminal: { answer: "y" } });
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.stdout).toContain(
      "Allow start the MCP servers this session recorded: notes: sh",
    );
    // Started again, without the process's OPENAI_API_KEY (the config of this run named none).
    expect(await started()).toBe("start sk-given-in-the-config-0123\nstart no-key\n");
  });
});

describe("where and how a session from elsewhere works", () => {
  it("an imported export opens over ACP in ask (its last turn said auto), and its first prompt says where it works", async () => {
    const model = await hostileModel([
      { toolCalls: [{ name: "run_command", arguments: { command: "touch RAN" } }] },
      { text: "done" },
    ]);
    await importHostileExport(model);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const agent = spawnAcp(model.env, model.workspace.cwd, "reject");
    onTestFinished(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const loaded = await agent.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: model.workspace.cwd,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("ask");
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    // run_command asked (and was rejected): it did not run under the log's `auto`.
    expect(agent.permissions.map((request) => request.toolCall.title)).toEqual(["Run touch RAN"]);
    expect(existsSync(path.join(model.workspace.cwd, "RAN"))).toBe(false);
    const said = agent.updates
      .map(({ update }) => update)
      .filter((update) => update.sessionUpdate === "agent_message_chunk")
      .map((update) => (update.content.type === "text" ? update.content.text : ""))
      .join("");
    expect(said).toContain(
      `Session ${sessionId} was imported from tapedeck: it will work in ${model.workspace.cwd}.`,
    );
  });

  it("run -c says once where an imported session will work", async () => {
    const model = await hostileModel([{ text: "one" }, { text: "two" }]);
    await importHostileExport(model);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const notice = `tapedeck: Session ${sessionId} was imported from tapedeck: it will work in ${model.workspace.cwd}.\n`;
    const first = await model.cli(["run", "-c", "hello"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(notice);
    const second = await model.cli(["run", "-c", "again"]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("it will work in");
  });

  it("import refuses a Claude Code session whose cwd is the root or relative, in one sentence each", async () => {
    const model = await hostileModel([]);
    const result = await model.cli([
      "import",
      "claude-code",
      hostileFixturePath("claude-code-projects"),
    ]);
    const output = result.stdout + result.stderr;
    expect(output).toContain(
      'session bbbbbbbb-2222-4222-8222-000000000001 not imported: its directory "/" is the filesystem root',
    );
    expect(output).toContain(
      'session bbbbbbbb-2222-4222-8222-000000000002 not imported: its directory "../../.." is a relative path',
    );
    expect(await homeLogs(model.workspace.home).sessionIds()).toEqual([]);
  });

  it("run -r refuses a log that records the root as its directory, in one sentence", async () => {
    const model = await hostileModel([{ text: "never" }]);
    const file = path.join(model.workspace.root, "export.jsonl");
    await writeFile(
      file,
      hostileFixtureText("tapedeck-export-mcp", {
        __CWD__: model.workspace.cwd,
        __MODEL__: "openai-chat:scripted",
      }),
    );
    expect((await model.cli(["import", "tapedeck", file])).code).toBe(0);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    // A log placed in the home by hand (sent by someone) says its directory is the root.
    const logFile = path.join(model.workspace.home, "sessions", `${sessionId}.jsonl`);
    const text = await readFile(logFile, "utf8");
    await writeFile(
      logFile,
      text.replace(`"cwd":${JSON.stringify(model.workspace.cwd)}`, '"cwd":"/"'),
    );
    const result = await model.cli(["run", "-r", sessionId, "read /etc"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Session ${sessionId} records the directory "/", which is the filesystem root; it will not work there: choose a directory explicitly with --cwd DIR.`,
    );
    expect(model.server.requests()).toEqual([]);
  });
});

describe("opencode storage from elsewhere", () => {
  it("import reads only regular files inside storage/: a ../ message id and a FIFO are refused in a sentence, without hanging", async () => {
    const model = await hostileModel([]);
    const data = path.join(model.workspace.root, "opencode");
    await cp(hostileFixturePath("opencode-storage"), data, { recursive: true });
    const messages = path.join(data, "storage", "message", "ses_18684d584ffe1JuGPUt8v6Igr8");
    execFileSync("mkfifo", [path.join(messages, "msg_zzzz_fifo.json")]);
    const result = await model.cli(["import", "opencode", path.join(data, "storage")], {
      timeoutMs: 15_000,
    });
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(0);
    expect(output).toContain(
      'a message id with / or .. ("../../outside") names no file inside the storage folder; not read',
    );
    expect(output).toContain("not a regular file (not read)");
    const logs = homeLogs(model.workspace.home);
    const ids = await logs.sessionIds();
    expect(ids).toHaveLength(1);
    expect(await logs.text(ids[0] ?? "")).not.toContain("GCLOUD-SECRET");
  });
});

describe("writes a person must see", () => {
  it("a write inside .git/ asks even under --approve (refused without a terminal), and the prompt shows the change", async () => {
    const config = "[core]\n\tfsmonitor = touch PWNED\n";
    const write = { name: "write_file", arguments: { path: ".git/config", content: config } };
    const model = await hostileModel([
      { toolCalls: [write] },
      { text: "done" },
      { toolCalls: [{ ...write, id: "call_again" }] },
      { text: "done" },
    ]);
    await mkdir(path.join(model.workspace.cwd, ".git"), { recursive: true });
    const gitConfig = path.join(model.workspace.cwd, ".git", "config");
    const auto = await model.cli(["run", "--approve", "set up git"]);
    expect(auto.code, auto.stderr).toBe(0);
    expect(existsSync(gitConfig)).toBe(false);
    expect(auto.stderr).toContain(
      'Write .git/config (inside .git/, where a change can make git run programs (hooks, core.fsmonitor)): content "[core]\\n\\tfsmonitor = touch PWNED\\n": needs approval, but there is no terminal to ask; rejected.',
    );
    const asked = await model.cli(["run", "-c", "again"], { terminal: { answer: "n" } });
    expect(asked.code, asked.stdout).toBe(0);
    expect(asked.stdout).toContain('content "[core]\\n\\tfsmonitor = touch PWNED\\n"? [y]es');
    expect(existsSync(gitConfig)).toBe(false);
  });
});

describe("what an MCP config leaves in the log", () => {
  it("x-mcp/servers keeps names, not secrets: no URL userinfo, query values, path or arg tokens", async () => {
    const model = await hostileModel([{ text: "ok" }]);
    const config = path.join(model.workspace.root, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          remote: {
            type: "http",
            url: "http://alice:pw-0123456789@127.0.0.1:9/mcp/Abc123Def456Ghi789Jkl012?api_key=qv-secret-value&team=x",
            headers: { Authorization: "Bearer header-secret-0123" },
          },
          local: {
            command: "true",
            args: [
              "--token",
              "plain-flag-secret",
              "--api-key=eq-secret-9",
              "ghp_abcdefghijklmnop123456",
            ],
          },
        },
      }),
    );
    const result = await model.cli(["run", "--mcp-config", config, "hi"]);
    expect(result.code, result.stderr).toBe(0);
    const [sessionId = ""] = await homeLogs(model.workspace.home).sessionIds();
    const text = await homeLogs(model.workspace.home).text(sessionId);
    for (const secret of [
      "alice",
      "pw-0123456789",
      "Abc123Def456Ghi789Jkl012",
      "qv-secret-value",
      "header-secret",
      "plain-flag-secret",
      "eq-secret-9",
      "ghp_abcdef",
    ]) {
      expect(text).not.toContain(secret);
    }
    const record = (await homeLogs(model.workspace.home).lines(sessionId)).find(
      (event) => event.type === "x-mcp/servers",
    );
    expect(record?.servers).toEqual([
      {
        transport: "http",
        name: "remote",
        url: "http://127.0.0.1:9/mcp/[redacted]?api_key=[redacted]&team=[redacted]",
        headerNames: ["Authorization"],
      },
      {
        transport: "stdio",
        name: "local",
        command: "true",
        args: ["--token", "[redacted]", "--api-key=[redacted]", "[redacted]"],
        envNames: [],
      },
    ]);
  });
});

/** One zstd frame of `count` RLE blocks of 128 KiB of "0": 4 bytes each on disk, one long line. */
function zstdBomb(count: number): Buffer {
  const blocks: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58])];
  for (let index = 0; index < count; index += 1) {
    const value = ((128 * 1024) << 3) | (1 << 1) | (index === count - 1 ? 1 : 0);
    blocks.push(Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, 0x30]));
  }
  return Buffer.concat(blocks);
}

describe("a Codex .jsonl.zst bomb", () => {
  it("decompresses as a stream: 8 KB expanding to 256 MiB keeps the import's peak RSS bounded", async () => {
    const model = await hostileModel([]);
    const sessions = path.join(model.workspace.root, "codex");
    await mkdir(sessions, { recursive: true });
    await writeFile(path.join(sessions, "rollout-bomb.jsonl.zst"), zstdBomb(2048));
    // GNU time prints the child's peak resident set (KiB) as the last line of stderr.
    const measured = spawnSync(
      "/usr/bin/time",
      ["-f", "%M", process.execPath, tapedeckBinary(), "import", "codex", sessions],
      { cwd: model.workspace.cwd, env: model.env, encoding: "utf8", timeout: 60_000 },
    );
    const peakKiB = Number(measured.stderr.trim().split("\n").at(-1));
    expect(measured.stdout + measured.stderr).toContain("line too long (268435456 bytes)");
    expect(peakKiB).toBeGreaterThan(0);
    expect(peakKiB).toBeLessThan(200 * 1024);
  });
});
