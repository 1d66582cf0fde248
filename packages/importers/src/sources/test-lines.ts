/** Test helper: a source file from objects (JSON lines) or raw strings. */
import { parseEvent, Session } from "@tapedeck/session";
import { splitLines } from "../lines";
import type { ConvertedSession } from "../types";
import type { SourceFile } from "./common";

/** Objects become JSON lines; strings are written as they are. Every line ends with "\n". */
export function fileOf(
  path: string,
  lines: readonly unknown[],
  options: { trailingNewline?: boolean } = {},
): SourceFile {
  const text = lines
    .map((line) => (typeof line === "string" ? line : JSON.stringify(line)))
    .join("\n");
  const bytes = Buffer.from(options.trailingNewline === false ? text : `${text}\n`);
  return { path, lines: splitLines(bytes, { path }).lines };
}

/** Event types in order, for compact assertions. */
export function typesOf(events: readonly { type: string }[]): string[] {
  return events.map((event) => event.type);
}

/** Throws unless the session's events replay under every invariant of the log. */
export function replays(session: ConvertedSession): Session {
  const id = "0190f000-0000-7000-8000-000000000000";
  const replay = Session.create(id, [], {
    type: "session",
    version: 1,
    sessionId: id,
    workspaceId: "/w",
    createdAt: session.createdAt,
    cwd: session.cwd,
    agent: { name: "test", version: "0" },
  });
  for (const [index, draft] of session.events.entries()) {
    replay.append(parseEvent({ ...draft, seq: index + 1 }));
  }
  return replay;
}
