import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEventDraft } from "@tapedeck/session";

/** A fresh temp directory; `home` inside it does not exist yet. */
export function tempDirectory(): { root: string; home: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), "tapedeck-store-"));
  return {
    root,
    home: join(root, "home"),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Draft builders for one run. */
export function drafts(runId: string) {
  return {
    system: (content: string): SessionEventDraft => ({
      type: "message",
      runId,
      role: "system",
      content,
    }),
    start: (resumed = false): SessionEventDraft => ({
      type: "turn/start",
      runId,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
      resumed,
    }),
    user: (content: string): SessionEventDraft => ({
      type: "message",
      runId,
      role: "user",
      content,
    }),
    assistant: (content: string): SessionEventDraft => ({
      type: "message",
      runId,
      role: "assistant",
      content,
    }),
    call: (callId: string, name = "read_file", args: unknown = { path: "a.txt" }) =>
      ({
        type: "function_call",
        runId,
        callId,
        name,
        arguments: JSON.stringify(args),
      }) satisfies SessionEventDraft,
    output: (callId: string, callSeq: number, output: string): SessionEventDraft => ({
      type: "function_call_output",
      runId,
      callId,
      output,
      isError: false,
      sourceEventSeqs: [callSeq],
    }),
    compact: (summary: string, replaces: number[]): SessionEventDraft => ({
      type: "compaction",
      runId,
      summary,
      surfaceOp: "replace",
      replaces,
    }),
    approval: (callId: string): SessionEventDraft => ({
      type: "approval/request",
      runId,
      callId,
      options: ["allow_once", "reject"],
    }),
    end: (status: "completed" | "interrupted" = "completed"): SessionEventDraft => ({
      type: "turn/end",
      runId,
      status,
    }),
  };
}
