import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLogCorruptError, type SessionEventDraft, uuidv7 } from "@tapedeck/session";
import { expect } from "vitest";
import { BlobStore } from "../src/blob-store";
import { type ChangeSet, createSessionStore, type SessionStore } from "../src/index";

/** A fresh temp directory; `home` inside it does not exist yet. */
export function tempDirectory(): { root: string; home: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), "tapedeck-store-"));
  return {
    root,
    home: join(root, "home"),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** What {@link tempDirectory} returns. */
export type TempDirectory = ReturnType<typeof tempDirectory>;

/**
 * A fresh temp directory, a store over its `home` and that home's blob store (for a
 * `beforeEach`; clean up `temp`).
 */
export function tempStore(): { temp: TempDirectory; store: SessionStore; blobs: BlobStore } {
  const temp = tempDirectory();
  return {
    temp,
    store: createSessionStore({ home: temp.home }),
    blobs: new BlobStore(temp.home),
  };
}

/** A process id that is not running: a child's, once it has exited. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  if (child.pid === undefined) throw new Error("no child");
  return child.pid;
}

/** Waits for `condition`, then one turn of the event loop (callbacks of what it saw on disk). */
export async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
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

/** A new session in `store` (a system message only); its id. */
export async function newSessionIn(store: SessionStore, cwd: string): Promise<string> {
  const d = drafts(uuidv7());
  const { sessionId } = await store.create({ cwd, seed: [d.system("s")] });
  return sessionId;
}

/** Appends one whole turn to a session of `store`. */
export async function appendTurnTo(store: SessionStore, sessionId: string): Promise<void> {
  const d = drafts(uuidv7());
  await store.append(sessionId, [d.start(), d.user("hi"), d.end()]);
}

/** The sessions a journal answer names (and that it is one). */
export function journalIds(changes: ChangeSet): string[] {
  expect(changes.kind).toBe("journal");
  return changes.kind === "journal" ? changes.sessionIds : [];
}

/** The `EventLogCorruptError` `promise` rejects with; fails when it resolves or throws another error. */
export function readError(promise: Promise<unknown>): Promise<EventLogCorruptError> {
  return promise.then(
    () => {
      throw new Error("the read succeeded");
    },
    (error: unknown) => {
      if (!EventLogCorruptError.isInstance(error)) throw error;
      return error;
    },
  );
}
