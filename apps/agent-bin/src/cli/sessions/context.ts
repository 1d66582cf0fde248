import type { QueryHost } from "@tapedeck/host/query";
import { toVisibleText } from "@tapedeck/session/core";
import type { QueryScope } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";
import type { Io } from "../io";

/** What every `tapedeck sessions` subcommand gets: the reading host, its flags and its helpers. */
export interface SessionsContext {
  /** The subcommand (`list`, `show`, …). */
  command: string;
  io: Io;
  host: QueryHost;
  store: SessionStore;
  values: { all?: boolean; json?: boolean; output?: string; html?: boolean };
  positionals: string[];
  /** The caller's workspace, or every workspace with `--all`. */
  scope: QueryScope;
  /** Every workspace (an id names one session wherever it is). */
  fullScope: QueryScope;
  /** The first positional as a full session id (a unique prefix accepted). */
  needId(): Promise<string>;
  /** {@link needId}, its header read first so a damaged one is reported as such. */
  needIndexedId(): Promise<string>;
  /** Logged on another machine of the team index (no local log). */
  remote(sessionId: string): boolean;
  /** Pretty JSON on stdout (`--json`). */
  print(value: unknown): void;
}

/** One subcommand: runs it, returns the exit code. */
export type SessionsHandler = (context: SessionsContext) => Promise<number>;

/**
 * One line of `text` as a terminal may show it: whitespace runs as one space, every other hidden,
 * control or bidi character as a visible escape (log text is untrusted: an escape sequence from a
 * tool's output must not drive the terminal), cut to `width` characters with an ellipsis.
 */
export function oneLine(text: string | null, width: number): string {
  const line = toVisibleText((text ?? "").replace(/\s+/g, " ").trim()).text;
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** `text` as a terminal may show it, lines kept: hidden, control and bidi characters escaped. */
export function visible(text: string): string {
  return toVisibleText(text, { keepLineBreaks: true }).text;
}
