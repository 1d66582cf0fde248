import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_SYSTEM_PROMPT, toolDefinitions } from "@tapedeck/agent";
import { standardTools } from "@tapedeck/host";
import { scriptedRecording, startReplayServer } from "@tapedeck/llm-replay";
import { createMemoryQueryEngine } from "@tapedeck/session-query";
import { afterEach, describe, expect, it } from "vitest";
import { BINARY, tempWorkspace } from "./binary";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a model server that reuses tool-call ids", () => {
  it("does not break the session: calls get session-unique ids, the provider's is kept, and the next turn runs", async () => {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    // Two responses, one call id: what a restarted server or some local servers send.
    const recording = scriptedRecording({
      tools: toolDefinitions(standardTools(createMemoryQueryEngine(), "recording")),
    })
      .system(DEFAULT_SYSTEM_PROMPT)
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
    const server = await startReplayServer(recording.recording());
    cleanups.push(() => server.close());
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: workspace.root,
      TAPEDECK_HOME: workspace.home,
      TAPEDECK_MODEL: "openai:gpt-4.1-mini",
      OPENAI_API_KEY: "test-key-not-real",
      OPENAI_BASE_URL: server.url,
    };
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BINARY, ...args], {
          cwd: workspace.cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("exit", (code) => resolve({ code, stdout, stderr }));
      });

    const first = await cli(["run", "look twice"]);
    expect({ code: first.code, stdout: first.stdout }, first.stderr).toEqual({
      code: 0,
      stdout: "Still empty.\n",
    });
    const [file] = await readdir(path.join(workspace.home, "sessions"));
    const sessionId = (file ?? "").replace(/\.jsonl$/, "");
    const second = await cli(["run", "-r", sessionId, "and now?"]);
    expect({ code: second.code, stdout: second.stdout }, second.stderr).toEqual({
      code: 0,
      stdout: "Empty.\n",
    });
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();

    const events = (await readFile(path.join(workspace.home, "sessions", file ?? ""), "utf8"))
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
