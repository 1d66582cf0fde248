import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";

/**
 * Session logs of a home as the tests see them, always through the store (`scan()`, its reader):
 * no test lists the sessions folder or builds a log path itself.
 */
export interface HomeLogs {
  /** The store of the home (read-only use; it writes nothing until asked). */
  store: SessionStore;
  /** Ids of every log in the home (damaged ones too), sorted. */
  sessionIds(): Promise<string[]>;
  /** One log's bytes as stored (header line first), or `undefined` when there is none. */
  text(sessionId: string): Promise<string | undefined>;
  /** Every log's text by session id, sorted by id. */
  all(): Promise<Map<string, string>>;
  /** One log as parsed JSON lines (header first); throws when there is no such log. */
  lines(sessionId: string): Promise<Record<string, unknown>[]>;
  /**
   * Puts a log into the home exactly as given (a fixture: `eventLogBuilder(…).jsonl()`, a damaged
   * or hand-written log), where the store keeps it; returns its session id (from line 1).
   */
  write(text: string): string;
  /** Where the store keeps a session's log, for tests that damage it on purpose. */
  pathOf(sessionId: string): string;
}

/** The logs of `home` (a home that does not exist yet has none). */
export function homeLogs(home: string): HomeLogs {
  const store = createSessionStore({ home, onWarning: () => undefined });
  const text = async (sessionId: string): Promise<string | undefined> => {
    const entry = store.entry(sessionId);
    if (entry === null) return undefined;
    const reader = store.openLogReader(sessionId);
    if (reader === null) return undefined;
    try {
      return reader.readAt(0, entry.size)?.toString("utf8");
    } finally {
      reader.close();
    }
  };
  return {
    store,
    async sessionIds() {
      return (await store.scan()).logs.map((log) => log.sessionId);
    },
    text,
    async all() {
      const logs = new Map<string, string>();
      for (const { sessionId } of (await store.scan()).logs) {
        const content = await text(sessionId);
        if (content !== undefined) logs.set(sessionId, content);
      }
      return logs;
    },
    async lines(sessionId) {
      const content = await text(sessionId);
      if (content === undefined) throw new Error(`no log for session ${sessionId}`);
      return jsonLines(content);
    },
    write(content) {
      const header = JSON.parse(content.slice(0, content.indexOf("\n"))) as { sessionId?: unknown };
      if (typeof header.sessionId !== "string") throw new Error("write: line 1 has no sessionId");
      const file = store.pathOf(header.sessionId);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return header.sessionId;
    },
    pathOf: (sessionId) => store.pathOf(sessionId),
  };
}

/** JSON lines (a log, `--json` output) as objects; a trailing newline is fine. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
