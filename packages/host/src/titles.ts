import type { Session } from "@tapedeck/session";
import { titleOf } from "@tapedeck/session-query";

/**
 * A session's title: its first user message, whitespace collapsed and cut to `TITLE_LENGTH`,
 * exactly as the index titles it (so `session/list`, `session_info_update`, the CLI and the viewer
 * agree). `undefined` before the first prompt.
 */
export function sessionTitle(session: Session): string | undefined {
  for (const event of session.events) {
    if (event.type === "message" && event.role === "user") {
      return titleOf(event.content) ?? undefined;
    }
  }
  return undefined;
}

/** The title a first prompt gives its session (live, before the index has it). */
export function titleOfPrompt(prompt: string): string | undefined {
  return titleOf(prompt) ?? undefined;
}
