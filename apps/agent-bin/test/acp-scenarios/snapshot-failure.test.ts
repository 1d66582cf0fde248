import path from "node:path";
import { fileURLToPath } from "node:url";
import { expectScenarioSnapshot, runScenario } from "@tapedeck/acp-snapshot";
import { tapedeckCommand } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import * as textAnswer from "./scenarios/text-answer";

const snapshots = path.join(path.dirname(fileURLToPath(import.meta.url)), "__snapshots__");

describe("a changed notification", () => {
  it("fails the scenario with a readable diff that names the file, the line and the field", async () => {
    const result = await runScenario(textAnswer.scenario, {
      command: tapedeckCommand(),
      recording: textAnswer.recording(),
    });
    expectScenarioSnapshot(result, snapshots);

    // Change one streamed chunk, as a regression in the agent would.
    const index = result.wire.findIndex(
      (entry) =>
        entry.from === "agent" &&
        (entry.message.params as { update?: { sessionUpdate?: string } } | undefined)?.update
          ?.sessionUpdate === "agent_message_chunk",
    );
    expect(index).toBeGreaterThan(0);
    const entry = result.wire[index]!;
    if (entry.from !== "agent") throw new Error("unreachable");
    const update = (entry.message.params as { update: { content: { text: string } } }).update;
    update.content.text = "Goodbye! ";

    let message = "";
    try {
      expectScenarioSnapshot(result, snapshots, { update: false });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("scenario new-session-text-answer differs from its snapshots");
    expect(message).toContain(
      `new-session-text-answer.wire.jsonl: first difference at line ${index + 1}`,
    );
    expect(message).toContain('params.update.content.text: expected "Hello! ", got "Goodbye! "');
    // Readable: the context and the two versions of the line, not a dump of the whole wire.
    expect(message.split("\n").length).toBeLessThan(20);
  });

  it("fails on a notification sent after the prompt's answer", async () => {
    const result = await runScenario(textAnswer.scenario, {
      command: tapedeckCommand(),
      recording: textAnswer.recording(),
    });
    expect(result.violations).toEqual([]);
    // The same check the runner applies live, on a wire with a late update appended.
    const late = await runScenario(
      { ...textAnswer.scenario, name: "late-update-probe" },
      {
        command: [
          process.execPath,
          path.join(path.dirname(fileURLToPath(import.meta.url)), "late-update-agent.mjs"),
        ],
      },
    );
    expect(late.violations.join("\n")).toContain("after its prompt was answered");
    expect(late.violations.join("\n")).toContain("non-JSON-RPC line to stdout");
  });
});
