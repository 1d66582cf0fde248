/** Test helper: made-up Claude Code transcripts that are one chain (each entry's parent the one before). */

/** Builders of one chain's entries (objects) for session `sessionId`, timed a second apart. */
export function claudeChainBuilder(sessionId: string): {
  entry: (fields: Record<string, unknown>) => Record<string, unknown>;
  user: (content: unknown) => Record<string, unknown>;
  assistant: (content: unknown[]) => Record<string, unknown>;
} {
  let n = 0;
  const entry = (fields: Record<string, unknown>): Record<string, unknown> => {
    n += 1;
    return {
      uuid: `e${n}`,
      parentUuid: n === 1 ? null : `e${n - 1}`,
      sessionId,
      cwd: "/work",
      timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
      ...fields,
    };
  };
  return {
    entry,
    user: (content) => entry({ type: "user", message: { role: "user", content } }),
    assistant: (content) =>
      entry({ type: "assistant", message: { role: "assistant", model: "claude-x", content } }),
  };
}
