/**
 * Continuous import over the built binary: `tapedeck import --auto on` makes every
 * `tapedeck sessions …` command import new and grown sessions of every tool first
 * (off by default, off again with `--auto off`), and `tapedeck import --watch` imports them as
 * they appear until interrupted.
 */
import { appendFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cliContext, listSessions } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import {
  addOpencodeMessages,
  opencodeSample,
  writeOpencodeDatabase,
} from "../../../packages/importers/src/sources/test-opencode-db";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);

const made = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/made", import.meta.url),
);

type Context = Awaited<ReturnType<typeof cliContext>>;

/**
 * Runs `tapedeck import --watch` until its third look, calling `grow(look)` after looks 1 and 2,
 * then checks one session created and twice appended, the kept record's offset at the file's
 * end, and the watched home's log equal to what a whole import of the grown file writes.
 */
async function expectWatchedGrowthAsWhole(
  { workspace, cli, logs }: Context,
  source: "codex" | "claude-code",
  file: string,
  grow: (look: number) => void,
): Promise<void> {
  let looks = 0;
  const watched = await cli(["import", "--watch", "--interval", "0.2"], undefined, {
    onStdout: (stdout, child) => {
      const seen = stdout.split("sessions:").length - 1;
      if (seen === looks) return;
      looks = seen;
      if (looks <= 2) grow(looks);
      else child.kill("SIGINT");
    },
    timeoutMs: 20_000,
  });
  expect(watched.code, watched.stderr).toBe(0);
  expect(watched.stdout).toContain("sessions: 1 created, 0 appended, 0 forked, 0 unchanged");
  expect(watched.stdout.match(/sessions: 0 created, 1 appended/gu)).toHaveLength(2);
  // What the next look continues from: every byte of the file converted.
  const records = path.join(workspace.home, "import", "grown", source);
  const [record] = readdirSync(records);
  const kept = JSON.parse(readFileSync(path.join(records, record!), "utf8"));
  expect(kept.offset).toBe(readFileSync(file).length);
  // The same log as a whole import of the grown file into a home of its own.
  const whole = await cliContext();
  const imported = await whole.cli(["import", source, file]);
  expect(imported.code, imported.stderr).toBe(0);
  const wholeLogs = await whole.logs.all();
  expect(wholeLogs.size).toBe(1);
  expect(await logs.all()).toEqual(wholeLogs);
}

describe("continuous import", () => {
  it("imports before a sessions command while auto import is on, and not when off", async () => {
    const { workspace, cli } = await cliContext();
    // HOME is the workspace root (see binaryEnv).
    cpSync(path.join(samples, "pi"), path.join(workspace.root, ".pi", "agent", "sessions"), {
      recursive: true,
    });
    const count = async () => (await listSessions(cli)).length;
    expect(await count()).toBe(0);
    const on = await cli(["import", "--auto", "on"]);
    expect(on.stdout).toContain("Auto import on");
    expect(await count()).toBe(1);
    cpSync(path.join(samples, "claude-code"), path.join(workspace.root, ".claude", "projects"), {
      recursive: true,
    });
    const search = await cli(["sessions", "search", "--all", "phx.server"]);
    expect(search.stdout).toContain("phx.server");
    expect(await count()).toBe(2);
    expect((await cli(["import", "--auto", "off"])).stdout).toContain("Auto import off");
    cpSync(path.join(samples, "codex"), path.join(workspace.root, ".codex", "sessions"), {
      recursive: true,
    });
    expect(await count()).toBe(2);
    expect((await cli(["import", "--auto", "maybe"])).code).toBe(2);
  });

  it("watches opencode's database and Gemini CLI's chats too", async () => {
    const { workspace, cli } = await cliContext();
    const data = path.join(workspace.root, ".local", "share", "opencode");
    const database = writeOpencodeDatabase(data, { messages: 2 });
    cpSync(path.join(made, "gemini"), path.join(workspace.root, ".gemini", "tmp"), {
      recursive: true,
    });
    expect((await cli(["import", "--auto", "on"])).code).toBe(0);
    const list = () => listSessions(cli);
    const first = await list();
    // opencode's session, Gemini CLI's saved chat and its checkpoint.
    expect(first).toHaveLength(3);
    addOpencodeMessages(database, opencodeSample.info.id, 2, 3);
    const after = await list();
    expect(after).toHaveLength(3);
    const grownSession = after.find(
      (item) => item.eventCount !== first.find((old) => old.id === item.id)?.eventCount,
    );
    expect(grownSession).toBeDefined();
  });

  it("watches the default folders and imports a session that grows, until interrupted", async () => {
    const { workspace, cli } = await cliContext();
    const folder = path.join(workspace.root, ".claude", "projects");
    cpSync(path.join(samples, "claude-code"), folder, { recursive: true });
    const project = path.join(folder, readdirSync(folder)[0]!);
    const file = path.join(project, readdirSync(project)[0]!);
    const lastLine = readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!;
    let grown = false;
    let stopped = false;
    const watched = await cli(["import", "--watch", "--interval", "0.2"], undefined, {
      onStdout: (stdout, child) => {
        if (!grown && stdout.includes("1 created")) {
          // After the first look: the session grows by one line; a later look appends it.
          grown = true;
          appendFileSync(file, `${lastLine.replace(/"uuid":"[^"]+"/u, '"uuid":"grown-1"')}\n`);
        } else if (!stopped && stdout.includes("1 appended")) {
          stopped = true;
          child.kill("SIGINT");
        }
      },
      timeoutMs: 20_000,
    });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain("sessions: 1 created, 0 appended, 0 forked, 0 unchanged");
    expect(watched.stdout).toContain("sessions: 0 created, 1 appended, 0 forked, 0 unchanged");
  });

  it("a watched Codex rollout that grows is appended from where the last look stopped: the log a whole import writes", async () => {
    const context = await cliContext();
    const { workspace } = context;
    const folder = path.join(workspace.root, ".codex", "sessions");
    cpSync(path.join(samples, "codex"), folder, { recursive: true });
    const file = readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))[0]!;
    const reply = (second: number, text: string) =>
      `${JSON.stringify({
        timestamp: `2025-12-28T12:22:0${second}.000Z`,
        type: "response_item",
        payload: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
      })}\n`;
    // After the first look the rollout grows twice, in place; the third look stops it.
    await expectWatchedGrowthAsWhole(context, "codex", file, (look) =>
      appendFileSync(file, reply(look, `part ${look}`)),
    );
  });

  it("a watched Claude Code transcript with parallel tool calls that grows is appended from where the last look stopped: the log a whole import writes", async () => {
    const context = await cliContext();
    const { workspace } = context;
    const folder = path.join(workspace.root, ".claude", "projects");
    cpSync(path.join(samples, "claude-code"), folder, { recursive: true });
    const project = path.join(folder, readdirSync(folder)[0]!);
    const file = path.join(project, readdirSync(project)[0]!);
    // The real sample: the results of its parallel calls hang from their own calls. The watch
    // sees its first 5 lines, then 10, then all 15.
    const lines = readFileSync(file, "utf8").split(/(?<=\n)/u);
    expect(lines).toHaveLength(15);
    writeFileSync(file, lines.slice(0, 5).join(""));
    await expectWatchedGrowthAsWhole(context, "claude-code", file, (look) =>
      appendFileSync(file, lines.slice(5 * look, 5 * look + 5).join("")),
    );
  });
});
