import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SYSTEM_PROMPT, defaultTools, initializeRun, runTurn } from "../src/index";
import { type Sandbox, sandbox, scriptedProvider } from "./helpers";

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});

const model = "openai:gpt-4.1-mini";
const policy = { approval: "auto" } as const;

/** Continues `sessionId` with one scripted answer; returns the request the model got. */
async function continueSession(sessionId: string, goal?: string) {
  const provider = scriptedProvider([{ text: "ok" }]);
  const run = await initializeRun({
    store: box.store,
    sessionId,
    input: "go on",
    cwd: box.cwd,
    policy,
    model,
  });
  if (goal !== undefined) await run.writer.append([{ type: "goal/set", runId: run.runId, goal }]);
  await runTurn({ run, provider, model, tools: defaultTools(), policy, cwd: box.cwd });
  expect(provider.requests).toHaveLength(1);
  return provider.requests[0]!;
}

describe("the run's system prompt", () => {
  it("is sent as instructions to a session whose history has no system message (an imported one)", async () => {
    // What an importer writes: another tool's conversation, no Tapedeck seed.
    const runId = "import-0123456789abcdef01234567";
    const { sessionId } = await box.store.create({
      cwd: box.cwd,
      seed: [
        { type: "turn/start", runId, policy: { approval: "ask" }, model, resumed: false },
        { type: "message", runId, role: "user", content: "fix the parser" },
        { type: "message", runId, role: "assistant", content: "Fixed." },
        { type: "turn/end", runId, status: "completed" },
      ],
    });
    const request = await continueSession(sessionId, "ship it");
    expect(request.instructions).toBe(`${DEFAULT_SYSTEM_PROMPT}\n\nCurrent goal: ship it`);
    expect(request.input.map((item) => item.type === "message" && item.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);
  });

  it("is not repeated for a session that holds it in its seed", async () => {
    const provider = scriptedProvider([{ text: "first" }]);
    const first = await initializeRun({
      store: box.store,
      input: "hi",
      cwd: box.cwd,
      policy,
      model,
    });
    await runTurn({ run: first, provider, model, tools: defaultTools(), policy, cwd: box.cwd });
    expect(provider.requests[0]!.instructions).toBeUndefined();

    const request = await continueSession(first.sessionId);
    expect(request.instructions).toBeUndefined();
    expect(request.input[0]).toMatchObject({ role: "system", content: DEFAULT_SYSTEM_PROMPT });
    expect(
      request.input.filter((item) => item.type === "message" && item.role === "system"),
    ).toHaveLength(1);
  });
});
