import { agentScript, cliContext } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";

describe("a model server that reuses tool-call ids", () => {
  it("does not break the session: calls get session-unique ids, the provider's is kept, and the next turn runs", async () => {
    // Two responses, one call id: what a restarted server or some local servers send.
    const recording = agentScript()
      .user("look twice")
      .toolCall("list_dir", { path: "." }, { callId: "call_0" })
      .toolResult("(empty directory)")
      .toolCall("list_dir", { path: "." }, { callId: "call_0" })
      .toolResult("(empty directory)")
      .text("Still empty.")
      .user("and now?")
      .toolCall("list_dir", { path: "." }, { callId: "call_0" })
      .toolResult("(empty directory)")
      .text("Empty.")
      .end()
      .build();
    // Strict: every request must carry exactly the recorded ids (consistent call/output pairs).
    const { cli, server, logs } = await cliContext(recording);

    const first = await cli(["run", "look twice"]);
    expect({ code: first.code, stdout: first.stdout }, first.stderr).toEqual({
      code: 0,
      stdout: "Still empty.\n",
    });
    const [sessionId = ""] = await logs.sessionIds();
    const second = await cli(["run", "-r", sessionId, "and now?"]);
    expect({ code: second.code, stdout: second.stdout }, second.stderr).toEqual({
      code: 0,
      stdout: "Empty.\n",
    });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();

    const events = (await logs.lines(sessionId)).slice(1);
    const calls = events.filter((event) => event.type === "function_call");
    expect(calls.map((call) => [call.callId, call.providerCallId])).toEqual([
      ["call_0", undefined],
      ["call_0_2", "call_0"],
      ["call_0_3", "call_0"],
    ]);
    const outputs = events.filter((event) => event.type === "function_call_output");
    expect(outputs.map((output) => [output.callId, output.sourceEventSeqs])).toEqual(
      calls.map((call) => [call.callId, [call.seq]]),
    );
    // The first run of a new session is named after it (runId = sessionId).
    expect(events.find((event) => event.type === "turn/start")?.runId).toBe(sessionId);
  });
});
