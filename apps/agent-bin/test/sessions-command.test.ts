import { appendFile, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { createHost } from "@tapedeck/host";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createSessionStore, defaultWorkspaceId } from "@tapedeck/session-store";
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

const PARENT = "0193b6e2-7c1a-7d3e-9f00-00000000000a";
const CHILD = "0193b6e2-7c1a-7d3e-9f00-00000000000b";
const OTHER = "0193c000-0000-7000-8000-00000000000c";
const OPEN = "0193b6e2-7c1a-7d3e-9f00-00000000000d";

function cli(args: string[]) {
  return inProcessCli({ env: { TAPEDECK_HOME: workspace.home }, cwd: workspace.cwd })(args);
}

async function writeLogs(): Promise<void> {
  const logs = homeLogs(workspace.home);
  const parent = eventLogBuilder({ sessionId: PARENT, cwd: workspace.cwd })
    .system("You are Tapedeck.")
    .turn()
    .user("Find the needle in the haystack")
    .call("search_files", { pattern: "needle" })
    .output("src/hay.ts:3: const needle = 1;")
    .assistant("The needle is in src/hay.ts.")
    .end();
  parent.compact("User looked for the needle; it is in src/hay.ts.", [3, 4, 5, 6]);
  logs.write(parent.jsonl());
  const child = eventLogBuilder({
    sessionId: CHILD,
    cwd: workspace.cwd,
    parent: { sessionId: PARENT, seq: 7 },
  })
    .turn()
    .user("Now move it")
    .assistant("Moved.")
    .end();
  logs.write(child.jsonl());
  const other = eventLogBuilder({ sessionId: OTHER, cwd: "/some/other/place" })
    .system("s")
    .turn()
    .user("elsewhere")
    .end();
  logs.write(other.jsonl());
}

describe("tapedeck sessions", () => {
  beforeEach(writeLogs);

  it("list shows this workspace's sessions; --all shows every one", async () => {
    const here = await cli(["sessions", "list"]);
    expect(here.code).toBe(0);
    expect(here.stdout).toContain(PARENT);
    expect(here.stdout).toContain(CHILD);
    expect(here.stdout).not.toContain(OTHER);
    expect(here.stdout).toContain("Find the needle");
    const all = await cli(["sessions", "list", "--all", "--json"]);
    expect((JSON.parse(all.stdout) as { id: string }[]).map((item) => item.id).sort()).toEqual(
      [PARENT, CHILD, OTHER].sort(),
    );
  });

  it("list shows a turn left open by a dead process as interrupted, and a running one as active", async () => {
    const open = eventLogBuilder({ sessionId: OPEN, cwd: workspace.cwd })
      .system("s")
      .turn()
      .user("Still going?");
    homeLogs(workspace.home).write(open.jsonl());
    const statusOf = async () => {
      const listed = JSON.parse((await cli(["sessions", "list", "--json"])).stdout) as {
        id: string;
        status: string;
      }[];
      return listed.find((item) => item.id === OPEN)?.status;
    };
    expect(await statusOf()).toBe("interrupted");
    const writer = await createSessionStore({ home: workspace.home }).openWriter(OPEN);
    try {
      expect(await statusOf()).toBe("active");
    } finally {
      await writer.close();
    }
  });

  it("search finds text in tool outputs; show prints the conversation", async () => {
    const hits = await cli(["sessions", "search", "hay.ts"]);
    expect(hits.code).toBe(0);
    expect(hits.stdout).toContain(PARENT);
    // OTHER lives in another workspace: found with --all, and the plain search says so.
    expect((await cli(["sessions", "search", "elsewhere"])).stderr).toBe(
      "No matches in this workspace (try --all).\n",
    );
    expect((await cli(["sessions", "search", "elsewhere", "--all"])).stdout).toContain(OTHER);
    const shown = await cli(["sessions", "show", PARENT.slice(0, 36)]);
    expect(shown.stdout).toContain("> Find the needle in the haystack");
    expect(shown.stdout).toContain("● search_files");
    expect(shown.stdout).toContain("compacted 4 items");
  });

  it("search, show and list print log text with escapes and bidi characters visible, never raw", async () => {
    const HOSTILE = "0193b6e2-7c1a-7d3e-9f00-0000000000e1";
    homeLogs(workspace.home).write(
      eventLogBuilder({ sessionId: HOSTILE, cwd: workspace.cwd })
        .turn()
        .user("pwned \u001b]0;owned\u0007 title \u202Edesrever\u202C end")
        .call("run_command", { command: "echo \u001b[2J" })
        .output("pwned \u001b[31mred\u001b[0m output")
        .assistant("pwned answer \u009b6n here")
        .end()
        .jsonl(),
    );
    const raw = ["\u001b", "\u0007", "\u009b", "\u202e", "\u202c"];
    for (const args of [
      ["sessions", "search", "pwned"],
      ["sessions", "show", HOSTILE],
      ["sessions", "list"],
    ]) {
      const result = await cli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("pwned");
      for (const character of raw) expect(result.stdout).not.toContain(character);
    }
    const shown = (await cli(["sessions", "show", HOSTILE])).stdout;
    expect(shown).toContain("\\e]0;owned");
    expect(shown).toContain("\\u{202E}desrever");
  });

  it("trace follows a compacted event to its replacement; lineage shows the fork", async () => {
    const trace = await cli(["sessions", "trace", PARENT, "4", "--json"]);
    expect(trace.code).toBe(0);
    expect(JSON.parse(trace.stdout)).toMatchObject({ visible: false, current: { seq: 8 } });
    const lineage = await cli(["sessions", "lineage", CHILD]);
    expect(lineage.stdout).toContain(`↑ ${PARENT} (forked at #7)`);
    expect(lineage.stdout).toContain(`● ${CHILD}`);
  });

  it("export writes a self-contained, validated fork", async () => {
    const file = path.join(workspace.root, "out.jsonl");
    expect((await cli(["sessions", "export", CHILD, "-o", file])).code).toBe(0);
    const lines = (await readFile(file, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type?: string; seq?: number; parent?: unknown });
    expect(lines[0]).toMatchObject({ type: "session", parent: { sessionId: PARENT, seq: 7 } });
    expect(lines[1]).toMatchObject({ seq: 1 });
  });

  it("export -o writes a private file (0600, as the home's logs), also over an existing 0644 file", async () => {
    const file = path.join(workspace.root, "private.jsonl");
    await writeFile(file, "old\n", { mode: 0o644 });
    expect((await cli(["sessions", "export", CHILD, "-o", file])).code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, "utf8")).toContain('"type":"session"');
  });

  it("verify passes clean logs and exits 1 with code, line and offset on damage", async () => {
    expect((await cli(["sessions", "verify", "--all"])).code).toBe(0);
    const file = homeLogs(workspace.home).pathOf(OTHER);
    const text = await readFile(file, "utf8");
    const damaged = text.replace('"seq":3', '"seq":9');
    await writeFile(file, damaged);
    const result = await cli(["sessions", "verify", "--all"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`DAMAGED  ${OTHER}  SEQ_GAP at line 4, byte \\d+`));
    const json = await cli(["sessions", "verify", OTHER, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject([
      { sessionId: OTHER, ok: false, code: "SEQ_GAP", line: 4 },
    ]);
  });

  it("repair moves a torn tail aside and closes an interrupted turn", async () => {
    const file = homeLogs(workspace.home).pathOf(OTHER);
    const open = eventLogBuilder({ sessionId: OTHER, cwd: "/some/other/place" })
      .system("s")
      .turn()
      .user("cut off")
      .call("run_command", { command: "sleep 9" });
    await writeFile(file, `${open.jsonl()}{"seq":5,"ts":"2026-01-01T00:00:00`);
    expect((await cli(["sessions", "verify", OTHER])).stdout).toContain("TORN_TAIL");
    const repaired = await cli(["sessions", "repair", OTHER]);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain("torn tail");
    expect(repaired.stdout).toContain("Closed the interrupted turn");
    expect((await cli(["sessions", "verify", OTHER])).code).toBe(0);
    expect((await cli(["sessions", "repair", OTHER])).stdout).toContain("Nothing to repair");
  });

  it("rm moves a log to the trash; a parent with forks is refused", async () => {
    expect((await cli(["sessions", "rm", PARENT])).code).toBe(1);
    expect((await cli(["sessions", "rm", OTHER])).code).toBe(0);
    expect((await cli(["sessions", "list", "--all", "--json"])).stdout).not.toContain(OTHER);
  });

  it("a log with a gap at seq 7: index says so, search serves nothing past it, list marks it damaged", async () => {
    const gapped = eventLogBuilder({ sessionId: OPEN, cwd: workspace.cwd })
      .turn()
      .user("aardvark before the gap")
      .assistant("Noted.")
      .end()
      .turn()
      .user("middle of the log")
      .assistant("Still here.")
      .end()
      .turn()
      .user("zeppelin after the gap")
      .end();
    const lines = gapped.jsonl().split("\n");
    // Line N + 1 holds seq N: drop seq 7.
    expect(JSON.parse(lines[7] ?? "{}")).toMatchObject({ seq: 7 });
    homeLogs(workspace.home).write([...lines.slice(0, 7), ...lines.slice(8)].join("\n"));
    const indexed = await cli(["index"]);
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toContain(
      `Damaged: session ${OPEN} is indexed only up to its first damage (SEQ_GAP at session ${OPEN}, line 8`,
    );
    expect(indexed.stdout).toContain(`\`tapedeck sessions verify ${OPEN}\` shows it.`);
    expect((await cli(["sessions", "search", "--all", "aardvark"])).stdout).toContain(OPEN);
    const after = await cli(["sessions", "search", "--all", "zeppelin"]);
    expect(after.stdout).not.toContain(OPEN);
    const listed = JSON.parse((await cli(["sessions", "list", "--json"])).stdout) as {
      id: string;
      status: string;
    }[];
    expect(listed.find((item) => item.id === OPEN)?.status).toBe("damaged");
  });

  it("index syncs and rebuilds", async () => {
    const first = await cli(["index"]);
    expect(first.stdout).toMatch(/3 added/);
    expect((await cli(["index"])).stdout).toMatch(/0 added, 0 updated/);
    const rebuilt = (await cli(["index", "--rebuild"])).stdout;
    expect(rebuilt).toMatch(/Rebuilt .* 3 added/);
    // A rebuild checkpoints its write-ahead log: the index is one file.
    expect(rebuilt).toMatch(/Index size: \d+\.\d MB \+ write-ahead log 0\.0 MB\./);
  });

  it("index checks every log: an append another program made without a journal record is read", async () => {
    const sessions = path.join(workspace.home, "sessions");
    // The folder's last change well before: the index's cursor is not racy (a racy one makes the
    // next sync list the folder anyway).
    const past = new Date(Date.now() - 60_000);
    await utimes(sessions, past, past);
    expect((await cli(["index"])).stdout).toMatch(/3 added/);
    const file = homeLogs(workspace.home).pathOf(OTHER);
    // The log `writeLogs` wrote, one turn longer: the new turn's lines are appended.
    const other = eventLogBuilder({ sessionId: OTHER, cwd: "/some/other/place" })
      .system("s")
      .turn()
      .user("elsewhere")
      .end();
    const before = other.events.length;
    // Its header and the same events (seq 1–4; run ids are drawn anew): the new turn follows on.
    expect((await readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(before + 1);
    other.turn().user("a haystack copied in from another machine").end();
    const added = other.events.slice(before);
    // In place, as a copy tool that rewrites the file's bytes would: no journal record, and the
    // folder's own mtime does not move.
    await appendFile(file, added.map((event) => `${JSON.stringify(event)}\n`).join(""));
    expect((await cli(["index"])).stdout).toMatch(
      new RegExp(`0 added, 1 updated, 0 removed, ${added.length} events indexed`),
    );
    const found = await cli(["sessions", "search", "--all", "copied"]);
    expect(found.stdout).toContain("in from another machine");
  });

  it("the session_query tool sees this workspace only", async () => {
    const host = createHost({ env: { TAPEDECK_HOME: workspace.home } });
    const tool = host
      .toolsFor({ cwd: workspace.cwd, workspaceId: defaultWorkspaceId(workspace.cwd) })
      .find((candidate) => candidate.name === "session_query");
    expect(tool).toBeDefined();
    const context = {
      cwd: workspace.cwd,
      fs: { readTextFile: async () => "", writeTextFile: async () => undefined },
      signal: new AbortController().signal,
      sessionId: PARENT,
    };
    const found = await tool?.execute({ action: "search_events", text: "needle" }, context);
    expect(found).toContain(PARENT);
    const elsewhere = await tool?.execute({ action: "search_events", text: "elsewhere" }, context);
    expect(elsewhere).not.toContain(OTHER);
    host.engine.close();
  });

  it("verify --all and id prefixes see logs whose header is damaged", async () => {
    const broken = "0193d000-0000-7000-8000-00000000000d";
    await writeFile(homeLogs(workspace.home).pathOf(broken), "");
    const all = await cli(["sessions", "verify", "--all"]);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(`DAMAGED  ${broken}  BAD_HEADER at line 1`);
    expect(all.stderr).toContain("4 checked, 1 damaged");
    const shown = await cli(["sessions", "show", broken.slice(0, 8)]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`BAD_HEADER at session ${broken}`);
    for (const command of [
      ["export", broken],
      ["lineage", broken],
      ["trace", broken, "1"],
    ]) {
      const result = await cli(["sessions", ...command]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`BAD_HEADER at session ${broken}`);
    }
  });

  it("trace lists only the events that replaced the traced one", async () => {
    const replaced = await cli(["sessions", "trace", PARENT, "4"]);
    expect(replaced.stdout.match(/replaced by/g)).toHaveLength(1);
    expect(replaced.stdout).toContain("replaced by #8 compaction");
    const current = await cli(["sessions", "trace", PARENT, "8"]);
    expect(current.code).toBe(0);
    expect(current.stdout).not.toContain("replaced by");
  });

  it("show numbers the turns; list says 1 turn", async () => {
    const shown = await cli(["sessions", "show", CHILD]);
    expect(shown.stdout).toMatch(/── turn 1 · /);
    expect(shown.stdout).toMatch(/── turn 2 · /);
    expect((await cli(["sessions", "list", "--all"])).stdout).toMatch(
      new RegExp(`${OTHER} .* 1 turn  `),
    );
  });

  it("file-system errors are one line naming the path, not a stack trace", async () => {
    const result = await cli([
      "sessions",
      "export",
      CHILD,
      "-o",
      path.join(workspace.root, "no", "such", "dir", "out.jsonl"),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `tapedeck: cannot open ${path.join(workspace.root, "no", "such", "dir", "out.jsonl")}: no such file or directory.\n`,
    );
  });

  it("repair of damage inside a log says what to do instead", async () => {
    const file = homeLogs(workspace.home).pathOf(OTHER);
    await writeFile(file, (await readFile(file, "utf8")).replace('"seq":3', '"seq":9'));
    const result = await cli(["sessions", "repair", OTHER]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("SEQ_GAP");
    expect(result.stderr).toContain("repair only moves an unfinished last line aside");
  });

  it("a damaged index.sqlite is moved aside and rebuilt from the logs, not a stack trace", async () => {
    const file = path.join(workspace.home, "index.sqlite");
    await writeFile(file, "this is not a SQLite database, it is garbage\n".repeat(100));
    const listed = await cli(["sessions", "list", "--all"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(PARENT);
    expect(listed.stderr).toMatch(
      /^tapedeck: the search index .*index\.sqlite was damaged \(file is not a database\); moved it to .*index\.sqlite\.damaged-\S+ and rebuilding it from the logs\.\n$/,
    );
    const aside = (await readdir(workspace.home)).filter((name) => name.includes(".damaged-"));
    expect(aside).toHaveLength(1);
  });

  it("index --rebuild over a damaged index.sqlite moves it aside and rebuilds", async () => {
    await writeFile(
      path.join(workspace.home, "index.sqlite"),
      "this is not a SQLite database, it is garbage\n".repeat(100),
    );
    const rebuilt = await cli(["index", "--rebuild"]);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/Rebuilt .* 3 added/);
    expect(rebuilt.stderr).toContain("was damaged");
  });

  it("unknown sub-commands are usage errors", async () => {
    expect((await cli(["sessions", "frobnicate"])).code).toBe(2);
    expect((await cli(["sessions", "show"])).code).toBe(2);
    expect((await cli(["sessions", "verify"])).stderr).toContain("--all");
  });
});
