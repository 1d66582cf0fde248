import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";

const sid = "dddddddd-0000-4000-8000-000000000001";

/** One Claude Code entry of `sid` at second `second`. */
function entry(second: number, type: string, message: object, extra: object = {}) {
  return {
    type,
    uuid: `u${second}`,
    parentUuid: second > 1 ? `u${second - 1}` : null,
    sessionId: sid,
    cwd: "/w",
    isSidechain: false,
    timestamp: new Date(Date.UTC(2026, 0, 2, 10, 0, second)).toISOString(),
    message,
    ...extra,
  };
}
const jsonl = (entries: unknown[]) => entries.map((line) => `${JSON.stringify(line)}\n`).join("");
const text = (role: string, content: unknown) => ({ role, content, model: "claude-x", id: role });

describe("Claude Code's folders", () => {
  it("imports <id>/subagents/agent-*.jsonl as its own session, linked from the parent by Tapedeck id", async () => {
    const root = testTempDir("tapedeck-claude-files-");
    const project = join(root, "projects", "-w");
    mkdirSync(join(project, sid, "subagents"), { recursive: true });
    writeFileSync(
      join(project, `${sid}.jsonl`),
      jsonl([
        entry(1, "user", text("user", "delegate the search")),
        entry(
          2,
          "assistant",
          text("assistant", [{ type: "tool_use", id: "toolu_T", name: "Task", input: {} }]),
        ),
        entry(
          5,
          "user",
          text("user", [{ type: "tool_result", tool_use_id: "toolu_T", content: "otters" }]),
        ),
        entry(6, "assistant", text("assistant", [{ type: "text", text: "Done." }])),
      ]),
    );
    writeFileSync(
      join(project, sid, "subagents", "agent-a1.jsonl"),
      jsonl([
        entry(3, "user", text("user", "find otters"), {
          isSidechain: true,
          agentId: "a1",
          parentUuid: null,
        }),
        entry(4, "assistant", text("assistant", [{ type: "text", text: "in the river" }]), {
          isSidechain: true,
          agentId: "a1",
        }),
      ]),
    );
    const store = createSessionStore({ home: join(root, "home") });
    // The default location, through CLAUDE_CONFIG_DIR.
    const summary = await importSessions({
      store,
      source: "claude-code",
      env: { HOME: "/nowhere", CLAUDE_CONFIG_DIR: root },
    });
    // The sub-agent's file is read with its parent, not as a transcript of its own.
    expect(summary.files.map((file) => file.path)).toEqual([join(project, `${sid}.jsonl`)]);
    const [parent, child] = summary.files[0]!.sessions;
    expect(child?.key.sessionId).toBe(`${sid}/agent-a1`);
    expect((await store.readHeader(child!.sessionId)).origin).toMatchObject({
      tool: "claude-code",
      parentSessionId: sid,
      path: join(project, sid, "subagents", "agent-a1.jsonl"),
    });
    const events = (await store.readSession(parent!.sessionId)).events;
    const link = events.find((event) => event.type === "x-claude-code-subagent");
    expect(link).toMatchObject({ sessionId: child!.sessionId, text: "find otters" });
    // Placed where the sub-agent started: after the Task call, before its result.
    const types = events.map((event) => event.type);
    expect(types.indexOf("x-claude-code-subagent")).toBeGreaterThan(types.indexOf("function_call"));
    expect(types.indexOf("x-claude-code-subagent")).toBeLessThan(
      types.indexOf("function_call_output"),
    );
    const childEvents = (await store.readSession(child!.sessionId)).events;
    expect(childEvents.map((event) => event.type)).toEqual([
      "turn/start",
      "message",
      "message",
      "turn/end",
    ]);
  });
});
