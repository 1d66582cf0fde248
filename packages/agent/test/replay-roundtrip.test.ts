import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { LlmProvider } from "@tapedeck/llm";
import { createReplayProvider } from "@tapedeck/llm-replay";
import type { SessionEvent, SessionHeader } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { defaultTools, runAgent } from "../src/index";
import { sandbox, scriptedProvider } from "./helpers";

const model = "openai:gpt-4.1-mini";

/** Three turns: a tool loop, an answer, then a compaction before the last answer. */
async function session(
  provider: (turn: number) => LlmProvider,
): Promise<{ header: SessionHeader; events: SessionEvent[] }> {
  const box = await sandbox();
  await writeFile(path.join(box.cwd, "notes.txt"), "remember the milk\n");
  const common = {
    store: box.store,
    model,
    policy: { approval: "auto" as const },
    cwd: box.cwd,
    tools: defaultTools(),
  };
  const first = await runAgent({
    ...common,
    provider: provider(0),
    input: "What is in notes.txt?",
  });
  await runAgent({
    ...common,
    provider: provider(1),
    sessionId: first.sessionId,
    input: "And the directory?",
  });
  await runAgent({
    ...common,
    provider: provider(2),
    sessionId: first.sessionId,
    input: "Summarize.",
    compactAt: 10,
    keepLastItems: 1,
  });
  const stored = await box.store.readSession(first.sessionId);
  return { header: stored.header, events: [...stored.events] };
}

function shape(events: readonly SessionEvent[]): unknown[] {
  // Everything but ids and times: types, roles, contents, chunks, digests, inputItems, outputs.
  return events.map((event) => {
    const { ts: _ts, runId: _runId, ...rest } = event as SessionEvent & Record<string, unknown>;
    const copy: Record<string, unknown> = { ...rest };
    delete copy.requestId;
    return copy;
  });
}

describe("record, then replay with @tapedeck/llm-replay", () => {
  it("a session recorded by the agent replays token-exactly, every request matching strictly", async () => {
    const scripted = [
      scriptedProvider([
        { calls: [{ callId: "c1", name: "read_file", arguments: { path: "notes.txt" } }] },
        { text: "It says: remember the milk.", chunks: 4 },
      ]),
      scriptedProvider([
        { calls: [{ callId: "c2", name: "list_dir", arguments: {} }] },
        { text: "One file, notes.txt.", chunks: 3 },
      ]),
      scriptedProvider([
        { text: "Asked about notes.txt; it says remember the milk.", chunks: 2 },
        { text: "Done." },
      ]),
    ];
    const recorded = await session((turn) => scripted[turn] as LlmProvider);
    expect(recorded.events.filter((event) => event.type === "compaction")).toHaveLength(1);
    expect(recorded.events.filter((event) => event.type === "model/request")).toHaveLength(6);

    const replay = createReplayProvider(recorded, { id: "scripted" });
    const replayed = await session(() => replay);
    replay.assertAllConsumed();
    expect(shape(replayed.events)).toEqual(shape(recorded.events));
  });
});
