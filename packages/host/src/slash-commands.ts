/**
 * A slash command a person typed as a prompt. The host reads it once, before the run: it is
 * recorded as what it is (a compaction with `trigger: "user"`, a `goal/set`), never as a user
 * message the model would see in every later turn.
 */
export type SlashCommand = { name: "compact" } | { name: "goal"; goal: string | null };

/** The commands a surface can advertise (ACP `available_commands_update`, help texts). */
export const SLASH_COMMANDS: readonly { name: string; description: string; hint?: string }[] = [
  { name: "compact", description: "Summarize the conversation so far to free the context" },
  {
    name: "goal",
    description:
      "Set the session's standing goal (shown to the model every turn); /goal clear removes it",
    hint: "the goal, or clear",
  },
];

/**
 * Reads `/compact` or `/goal TEXT` (`/goal` alone or `/goal clear` clears the goal). Anything else,
 * including unknown `/words`, is an ordinary prompt (`undefined`).
 */
export function parseSlashCommand(input: string): SlashCommand | undefined {
  const text = input.trim();
  if (text === "/compact") return { name: "compact" };
  const goal = /^\/goal(?:\s+([\s\S]*))?$/.exec(text);
  if (goal !== null) {
    const value = (goal[1] ?? "").trim();
    return { name: "goal", goal: value === "" || value === "clear" ? null : value };
  }
  return undefined;
}
