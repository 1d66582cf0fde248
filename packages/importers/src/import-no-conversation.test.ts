import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it } from "vitest";
import { importSessions } from "./import-run";

const jsonl = (entries: unknown[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");

describe("files that hold no conversation", () => {
  it("write no session: a Claude Code file of summary lines, a Codex rollout quit before its first prompt", async () => {
    const root = testTempDir("tapedeck-no-conversation-");
    const store = createSessionStore({ home: join(root, "home") });
    const claude = join(root, "claude", "-p");
    mkdirSync(claude, { recursive: true });
    writeFileSync(
      join(claude, "eeeeeeee-0000-4000-8000-000000000001.jsonl"),
      jsonl([
        { type: "summary", summary: "Fix the build", leafUuid: "abc" },
        { type: "summary", summary: "Other", leafUuid: "def" },
      ]),
    );
    const codex = join(root, "codex", "2026", "01", "02");
    mkdirSync(codex, { recursive: true });
    const id = "0194aaaa-0000-7000-8000-0000000000ff";
    const at = "2026-01-02T10:00:00.000Z";
    writeFileSync(
      join(codex, `rollout-2026-01-02T10-00-00-${id}.jsonl`),
      jsonl([
        {
          timestamp: at,
          type: "session_meta",
          payload: { id, timestamp: at, cwd: "/w", instructions: "Be terse." },
        },
        { timestamp: at, type: "turn_context", payload: { cwd: "/w", model: "gpt-5-codex" } },
      ]),
    );
    for (const [source, path] of [
      ["claude-code", join(root, "claude")],
      ["codex", join(root, "codex")],
    ] as const) {
      const summary = await importSessions({ store, source, paths: [path] });
      expect(summary.files[0], source).toMatchObject({ entries: 2, sessions: [], skipped: [] });
      // Entries were read: not a failure.
      expect(summary.nothingRead, source).toBe(false);
    }
    expect(await store.list()).toEqual([]);
  });
});
