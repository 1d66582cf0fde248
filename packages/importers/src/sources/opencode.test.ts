import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseJsonDocument } from "../lines";
import { convertOpencode } from "./opencode";
import { replays, typesOf } from "./test-lines";

const info = {
  id: "ses_abc",
  directory: "/home/me/app",
  title: "Poem",
  time: { created: 1780154575515, updated: 1780154599659 },
};
const part = (type: string, fields: Record<string, unknown> = {}) => ({
  id: `prt_${type}`,
  sessionID: "ses_abc",
  messageID: "m",
  type,
  ...fields,
});
const userMessage = (parts: unknown[]) => ({
  info: { id: "msg_u", sessionID: "ses_abc", role: "user", time: { created: 1780154575515 } },
  parts,
});
const assistantMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  info: {
    id: "msg_a",
    sessionID: "ses_abc",
    role: "assistant",
    time: { created: 1780154575600 },
    modelID: "deepseek-v4-pro",
    providerID: "opencode-go",
    ...extra,
  },
  parts,
});

describe("convertOpencode", () => {
  it("maps text, synthetic text, reasoning and tool parts (completed and error)", () => {
    const { sessions, skipped } = convertOpencode(
      {
        info,
        messages: [
          userMessage([
            part("text", { text: "write a poem" }),
            part("text", { text: "<file contents>", synthetic: true }),
          ]),
          assistantMessage([
            part("step-start"),
            part("reasoning", { text: "a short poem" }),
            part("tool", {
              callID: "call_1",
              tool: "write",
              state: { status: "completed", input: { filePath: "/p" }, output: "wrote" },
            }),
            part("tool", {
              callID: "call_2",
              tool: "bash",
              state: { status: "error", input: {}, error: "boom" },
            }),
            part("tool", {
              callID: "call_3",
              tool: "bash",
              state: { status: "running", input: {} },
            }),
            part("text", { text: "Done." }),
            part("step-finish", { reason: "stop" }),
          ]),
          // The next prompt closes the turn (the last turn of a file stays open while a call of
          // it runs: the source may still be writing it).
          userMessage([part("text", { text: "thanks" })]),
        ],
      },
      "/x/ses_abc.json",
    );
    expect(skipped).toEqual([]);
    const session = sessions[0]!;
    expect(session).toMatchObject({
      key: { tool: "opencode", sessionId: "ses_abc" },
      cwd: "/home/me/app",
      title: "Poem",
    });
    expect(typesOf(session.events)).toEqual([
      "x-opencode-context",
      "turn/start",
      "message",
      "x-opencode-reasoning",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "function_call",
      "message",
      "function_call_output",
      "turn/end",
      "turn/start",
      "message",
    ]);
    // The assistant message names the model after the prompt: later turns carry it.
    expect(session.events[1]).toMatchObject({ model: "opencode:unknown" });
    expect(session.events[12]).toMatchObject({ model: "opencode-go:deepseek-v4-pro" });
    expect(session.events[7]).toMatchObject({ callId: "call_2", output: "boom", isError: true });
    expect(session.events[10]).toMatchObject({ callId: "call_3", synthetic: true });
    expect(session.events[11]).toMatchObject({ status: "interrupted" });
    replays(session);
  });

  it("turns a summary assistant message into a compaction and names a sub-agent's parent", () => {
    const { sessions } = convertOpencode(
      {
        info: { ...info, parentID: "ses_parent" },
        messages: [
          userMessage([part("text", { text: "hello" })]),
          assistantMessage([part("text", { text: "hi" })]),
          assistantMessage([part("text", { text: "Summary of it all" })], { summary: true }),
        ],
      },
      "/x.json",
    );
    expect(sessions[0]?.parentOf).toEqual({ tool: "opencode", sessionId: "ses_parent" });
    expect(sessions[0]!.events.find((event) => event.type === "compaction")).toMatchObject({
      summary: "Summary of it all",
      replaces: [2, 3],
    });
  });

  it("reports a document that is not an export, and skips a malformed message", () => {
    expect(convertOpencode({ hello: 1 }, "/x.json").skipped[0]?.reason).toMatch(
      /not an opencode export/,
    );
    const { sessions, skipped } = convertOpencode(
      { info, messages: [42, userMessage([part("text", { text: "hi" })])] },
      "/x.json",
    );
    expect(skipped).toEqual([
      { path: "/x.json", line: 1, offset: 0, reason: "not an opencode message" },
    ]);
    expect(sessions).toHaveLength(1);
  });

  it("reads the real sample export", () => {
    const path = fileURLToPath(
      new URL(
        "../../__fixtures__/samples/opencode/ses_18684d584ffe1JuGPUt8v6Igr8.json",
        import.meta.url,
      ),
    );
    const text = readFileSync(path, "utf8");
    const parsed = parseJsonDocument(text, path);
    const { sessions } = convertOpencode(parsed.ok ? parsed.value : undefined, path);
    expect(sessions[0]?.title).toBe("Creating TEST_EDITS.md with poem");
    replays(sessions[0]!);
  });
});
