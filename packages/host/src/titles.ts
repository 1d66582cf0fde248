import type { Session } from "@tapedeck/session";
import { promptOf, titleOf } from "@tapedeck/session-query";

/**
 * A session's title: its first user message (the slash command that expanded to it, if any), whitespace collapsed and cut to `TITLE_LENGTH`,
 * exactly as the index titles it (so `session/list`, `session_info_update`, the CLI and the viewer
 * agree). `undefined` before the first prompt.
 */
export function sessionTitle(session: Session): string | undefined {
  for (const event of session.events) {
    if (event.type === "message" && event.role === "user") {
      return titleOf(promptOf(event)) ?? undefined;
    }
  }
  return undefined;
}

/** The title a first prompt gives its session (live, before the index has it). */
export function titleOfPrompt(prompt: string): string | undefined {
  return titleOf(prompt) ?? undefined;
}
