/**
 * `tapedeck import` end to end over the built binary, per source: import a folder (a real sample
 * and sessions written from each format's definition, one damaged line included), verify every
 * log, find text by search, import again with no change, continue one imported session and fork
 * another against llm-replay.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SYSTEM_PROMPT } from "@tapedeck/agent";
import { cliContext, agentScript as script } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);
const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
const at = (second: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString();

/** Two sessions of each source in its on-disk layout, working in `cwd`, mentioning `word`. */
const writers: Record<string, (dir: string, cwd: string, word: string) => void> = {
  "claude-code": (dir, cwd, word) => {
    const project = path.join(dir, "-work");
    mkdirSync(project, { recursive: true });
    for (const [index, id] of [
      "aaaaaaaa-1111-4111-8111-000000000001",
      "aaaaaaaa-1111-4111-8111-000000000002",
    ].entries()) {
      const common = { sessionId: id, cwd, isSidechain: false, version: "2.1.0" };
      writeFileSync(
        path.join(project, `${id}.jsonl`),
        jsonl([
          {
            ...common,
            type: "user",
            uuid: `${id}-1`,
            parentUuid: null,
            timestamp: at(index * 10 + 1),
            message: { role: "user", content: `find the ${word} ${index}` },
          },
          {
            ...common,
            type: "assistant",
            uuid: `${id}-2`,
            parentUuid: `${id}-1`,
            timestamp: at(index * 10 + 2),
            message: {
              id: "m1",
              role: "assistant",
              model: "claude-sonnet-4-5",
              content: [
                { type: "tool_use", id: `toolu_${index}`, name: "Bash", input: { command: "ls" } },
              ],
            },
          },
          {
            ...common,
            type: "user",
            uuid: `${id}-3`,
            parentUuid: `${id}-2`,
            timestamp: at(index * 10 + 3),
            message: {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: "a.txt" }],
            },
          },
          {
            ...common,
            type: "assistant",
            uuid: `${id}-4`,
            parentUuid: `${id}-3`,
            timestamp: at(index * 10 + 4),
            message: {
              id: "m2",
              role: "assistant",
              model: "claude-sonnet-4-5",
              content: [{ type: "text", text: "Found a.txt." }],
            },
          },
        ]) + (index === 1 ? "not json at all\n" : ""),
      );
    }
  },
  codex: (dir, cwd, word) => {
    const day = path.join(dir, "2026", "01", "02");
    mkdirSync(day, { recursive: true });
    for (const index of [0, 1]) {
      const id = `0194aaaa-0000-7000-8000-00000000000${index}`;
      writeFileSync(
        path.join(day, `rollout-2026-01-02T10-00-0${index}-${id}.jsonl`),
        jsonl([
          {
            timestamp: at(index * 10),
            type: "session_meta",
            payload: {
              id,
              timestamp: at(index * 10),
              cwd,
              cli_version: "0.77.0",
              instructions: "Be terse.",
            },
          },
          {
            timestamp: at(index * 10 + 1),
            type: "response_item",
            payload: {
              type: "message",
              role: "user",
              content: [{ type: "input_text", text: `find the ${word} ${index}` }],
            },
          },
          {
            timestamp: at(index * 10 + 1),
            type: "turn_context",
            payload: { cwd, model: "gpt-5-codex" },
          },
          {
            timestamp: at(index * 10 + 2),
            type: "response_item",
            payload: {
              type: "function_call",
              name: "shell",
              arguments: '{"command":["ls"]}',
              call_id: `call_${index}`,
            },
          },
          {
            timestamp: at(index * 10 + 3),
            type: "response_item",
            payload: { type: "function_call_output", call_id: `call_${index}`, output: "a.txt" },
          },
          {
            timestamp: at(index * 10 + 4),
            type: "response_item",
            payload: {
              type: "message",
              role: "assistant",
              content: [{ type: "output_text", text: "Found a.txt." }],
            },
          },
        ]) + (index === 1 ? '{"timestamp":"2026-01-02T10:00:30Z","type":"resp' : ""),
      );
    }
  },
  pi: (dir, cwd, word) => {
    const folder = path.join(dir, "--work--");
    mkdirSync(folder, { recursive: true });
    const id = "bbbbbbbb-0000-4000-8000-000000000001";
    const message = (entryId: string, parentId: string | null, second: number, body: object) => ({
      type: "message",
      id: entryId,
      parentId,
      timestamp: at(second),
      message: body,
    });
    /** A final assistant answer (Claude, stopped on its own). */
    const answer = (entryId: string, parentId: string, second: number, text: string) =>
      message(entryId, parentId, second, {
        role: "assistant",
        content: [{ type: "text", text }],
        provider: "anthropic",
        model: "claude-opus-4-5",
        stopReason: "stop",
      });
    writeFileSync(
      path.join(folder, `2026-01-02T10-00-00-000Z_${id}.jsonl`),
      jsonl([
        { type: "session", version: 3, id, timestamp: at(0), cwd },
        message("a1", null, 1, { role: "user", content: `find the ${word}` }),
        message("a2", "a1", 2, {
          role: "assistant",
          content: [{ type: "toolCall", id: "t1", name: "bash", arguments: { command: "ls" } }],
          provider: "anthropic",
          model: "claude-opus-4-5",
          stopReason: "toolUse",
        }),
        message("a3", "a2", 3, {
          role: "toolResult",
          toolCallId: "t1",
          toolName: "bash",
          content: [{ type: "text", text: "a.txt" }],
          isError: false,
        }),
        answer("a4", "a3", 4, "Found a.txt."),
        message("b1", "a4", 5, { role: "user", content: "try another way" }),
        answer("b2", "b1", 6, "Another way."),
        message("c1", "a4", 7, { role: "user", content: "thanks" }),
        answer("c2", "c1", 8, "You are welcome."),
      ]),
    );
  },
  opencode: (dir, cwd, word) => {
    mkdirSync(dir, { recursive: true });
    for (const index of [0, 1]) {
      const id = `ses_test${index}`;
      const part = (type: string, fields: object) => ({
        id: `prt_${type}${index}`,
        sessionID: id,
        type,
        ...fields,
      });
      writeFileSync(
        path.join(dir, `${id}.json`),
        JSON.stringify(
          {
            info: {
              id,
              directory: cwd,
              title: `Session ${index}`,
              time: { created: Date.parse(at(index * 10)) },
            },
            messages: [
              {
                info: {
                  id: `msg_u${index}`,
                  sessionID: id,
                  role: "user",
                  time: { created: Date.parse(at(index * 10 + 1)) },
                },
                parts: [part("text", { text: `find the ${word} ${index}` })],
              },
              {
                info: {
                  id: `msg_a${index}`,
                  sessionID: id,
                  role: "assistant",
                  time: { created: Date.parse(at(index * 10 + 2)) },
                  modelID: "m",
                  providerID: "p",
                },
                parts: [
                  part("tool", {
                    callID: `call_${index}`,
                    tool: "bash",
                    state: { status: "completed", input: { command: "ls" }, output: "a.txt" },
                  }),
                  part("text", { text: "Found a.txt." }),
                ],
              },
            ],
          },
          null,
          2,
        ),
      );
    }
  },
};

function setup(env: Record<string, string> = {}) {
  const recording = script()
    .user("continue from here")
    .text("Continued.")
    .end()
    .user("branch from here")
    .text("Branched.")
    .end()
    .build();
  // Loose: the imported history is whatever the source held; the new prompt must match.
  return cliContext(recording, { match: "loose", env: { extra: env } });
}

interface Summary {
  counts: Record<string, number>;
  skipped: number;
  files: {
    path: string;
    skipped: { line: number; reason: string }[];
    sessions: { sessionId: string; key: { sessionId: string }; forkedFrom?: unknown }[];
  }[];
}

describe.each(["claude-code", "codex", "pi", "opencode"])("tapedeck import %s", (source) => {
  it("imports a folder, verifies, searches, re-imports unchanged, continues one session and forks another", async () => {
    const { workspace, server, cli } = await setup();
    const dir = path.join(workspace.root, "source");
    cpSync(path.join(samples, source), path.join(dir, "sample"), { recursive: true });
    writers[source]!(path.join(dir, "made"), workspace.cwd, "zebrafish");

    const first = await cli(["import", source, dir, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as Summary;
    const made = summary.files.filter((file) => file.path.includes(`${path.sep}made${path.sep}`));
    const ids = made.flatMap((file) => file.sessions.map((session) => session.sessionId));
    expect(ids.length).toBe(2);
    expect(summary.counts.created).toBe(3);
    if (source === "claude-code" || source === "codex") {
      expect(summary.skipped).toBe(1);
      expect(first.stderr).toContain("warning: 1 line(s) skipped");
    }

    const verify = await cli(["sessions", "verify", "--all"]);
    expect(verify, verify.stdout).toMatchObject({ code: 0 });
    expect(verify.stdout + verify.stderr).toContain("3 checked, 0 damaged");

    const search = await cli(["sessions", "search", "--all", "zebrafish"]);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain(ids[0]);

    const again = await cli(["import", source, dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      "sessions: 0 created, 0 appended, 0 forked, 3 unchanged; 0 new event(s)",
    );

    const continued = await cli(["run", "-r", ids[0]!, "continue from here"]);
    expect(continued, continued.stderr).toMatchObject({ code: 0, stdout: "Continued.\n" });
    const forked = await cli(["run", "--fork", ids[1]!, "branch from here"]);
    expect(forked, forked.stderr).toMatchObject({ code: 0, stdout: "Branched.\n" });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    // The imported history is the other tool's; the model still works under Tapedeck's prompt,
    // once, in the continued session and in the fork alike.
    expect(server.requests()).toHaveLength(2);
    for (const request of server.requests()) {
      const system = [
        request.instructions ?? "",
        ...request.input.map((item) =>
          item.type === "message" && item.role === "system" ? item.content : "",
        ),
      ].join("\n");
      expect(system).toContain(DEFAULT_SYSTEM_PROMPT);
      expect(system.split(DEFAULT_SYSTEM_PROMPT)).toHaveLength(2);
      // The source's own instructions (Codex's session_meta) are an x- event: never sent.
      expect(JSON.stringify(request)).not.toContain("Be terse.");
    }

    const after = await cli(["sessions", "verify", "--all"]);
    expect(after.stdout + after.stderr).toContain("4 checked, 0 damaged");
    // The continued session holds everything its source has: importing again leaves it alone.
    const third = await cli(["import", source, dir]);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain("sessions: 0 created, 0 appended, 0 forked, 3 unchanged");
  });
});
