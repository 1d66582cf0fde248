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
    // The Task call (seq 3 of the parent; no prompt to match: the last call before it started).
    expect((await store.readHeader(child!.sessionId)).spawnedBy).toEqual({
      sessionId: parent!.sessionId,
      seq: 3,
      callId: "toolu_T",
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
    expect(childEvents.map((event) => event.type)).toEqual(["turn/start", "message", "message"]);
  });

  it("merges a resumed session's file (the earlier entries copied under their session id) into the earlier session", async () => {
    const root = testTempDir("tapedeck-claude-files-");
    const line = (second: number, session: string, role: string, text: string) =>
      entry(
        second,
        role,
        role === "user"
          ? { role, content: text }
          : { id: `m${second}`, role, model: "claude-x", content: [{ type: "text", text }] },
        { sessionId: session },
      );
    const earlier = [
      line(1, sid, "user", "one"),
      line(2, sid, "assistant", "first"),
      line(3, sid, "user", "two"),
      line(4, sid, "assistant", "second"),
    ];
    // Both orders: the resumed file's name may sort after the earlier one's or before it.
    for (const resumed of [
      "eeeeeeee-0000-4000-8000-0000000000bb",
      "00000000-0000-4000-8000-0000000000bb",
    ]) {
      const later = [
        ...earlier,
        line(5, resumed, "user", "three"),
        line(6, resumed, "assistant", "third"),
      ];
      const project = join(root, resumed, "-w");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, `${sid}.jsonl`), jsonl(earlier));
      writeFileSync(join(project, `${resumed}.jsonl`), jsonl(later));
      const store = createSessionStore({ home: join(root, `${resumed}-home`) });
      const summary = await importSessions({ store, source: "claude-code", paths: [project] });
      const ids = new Set(summary.files.flatMap((file) => file.sessions.map((s) => s.sessionId)));
      expect(ids.size, resumed).toBe(1);
      const events = (await store.readSession([...ids][0]!)).events;
      expect(events.flatMap((event) => ("content" in event ? [event.content] : []))).toEqual([
        "one",
        "first",
        "two",
        "second",
        "three",
        "third",
      ]);
    }
  });
});
