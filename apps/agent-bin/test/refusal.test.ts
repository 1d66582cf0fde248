/**
 * A model that declines, end to end: the real OpenAI providers against the replay server, the
 * ACP agent in-process (`session/prompt` answers `refusal`, `session/load` shows the words) and
 * `tapedeck run` (prints the words, exits 3).
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  createOpenAIChatProvider,
  createOpenAIResponsesProvider,
  type LlmProvider,
} from "@tapedeck/llm";
import { type ReplayServer, type ScriptedLog, startReplayServer } from "@tapedeck/llm-replay";
import { agentScript, tempWorkspace, updatesOf } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT_REFUSED, runCommand } from "../src/cli/run-command";
import { type AcpHarness, acpHarness } from "./acp-harness";

const apiKey = "test-key-not-real";
const refusal = "I can't help with that.";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(log: ScriptedLog) {
  const server: ReplayServer = await startReplayServer(log.recording());
  cleanups.push(() => server.close());
  return server;
}

const providers: [string, (baseURL: string) => LlmProvider][] = [
  ["Responses API", (baseURL) => createOpenAIResponsesProvider({ apiKey, baseURL })],
  ["Chat Completions", (baseURL) => createOpenAIChatProvider({ apiKey, baseURL })],
];

describe.each(providers)("ACP with a refusal over the %s", (_name, create) => {
  it("session/prompt answers refusal and shows the words; session/load replays them", async () => {
    const log = agentScript()
      .user("How do I get into my neighbour's flat?")
      .refusal(refusal)
      .user("What is a JSONL file?")
      .text("One JSON value per line.")
      .end()
      .build();
    const server = await serve(log);
    const provider = create(server.url);
    const first: AcpHarness = await acpHarness(() => provider);
    cleanups.push(() => first.close());
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: first.cwd,
      mcpServers: [],
    });
    const prompt = (h: AcpHarness, text: string) =>
      h.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
    expect(await prompt(first, "How do I get into my neighbour's flat?")).toEqual({
      stopReason: "refusal",
    });
    const texts = (h: AcpHarness) =>
      updatesOf(h.updates, "agent_message_chunk").map((update) =>
        update.content.type === "text" ? update.content.text : "",
      );
    expect(texts(first)).toEqual([refusal]);
    const session = await first.store.readSession(sessionId);
    expect(session.events.find((event) => event.type === "model/response")).toMatchObject({
      finishReason: "stop",
      refusal,
    });
    expect(session.events.at(-1)).toMatchObject({ type: "turn/end", status: "completed" });

    // Another process loads the session: the refusal reads as what the agent said.
    const second = await acpHarness(() => provider, {}, { home: first.home, cwd: first.cwd });
    cleanups.push(() => second.close());
    await second.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: second.cwd,
      mcpServers: [],
    });
    expect(
      second.updates.flatMap(({ update }) =>
        (update.sessionUpdate === "user_message_chunk" ||
          update.sessionUpdate === "agent_message_chunk") &&
        update.content.type === "text"
          ? [[update.sessionUpdate, update.content.text]]
          : [],
      ),
    ).toEqual([
      ["user_message_chunk", "How do I get into my neighbour's flat?"],
      ["agent_message_chunk", refusal],
    ]);
    // The next prompt carries the refusal as history (the strict replay matches) and ends normally.
    expect(await prompt(second, "What is a JSONL file?")).toEqual({ stopReason: "end_turn" });
    server.assertAllConsumed();
  });
});

describe("tapedeck run with a refusal", () => {
  async function runCli(args: string[]) {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    const log = agentScript()
      .user("How do I get into my neighbour's flat?")
      .refusal(refusal)
      .end()
      .build();
    const server = await serve(log);
    let stdout = "";
    let stderr = "";
    const code = await runCommand(args, {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {
        TAPEDECK_HOME: workspace.home,
        TAPEDECK_MODEL: "openai:gpt-4.1-mini",
        OPENAI_API_KEY: apiKey,
        OPENAI_BASE_URL: server.url,
      },
      cwd: workspace.cwd,
      interactive: false,
      ask: async () => "",
      onInterrupt: () => undefined,
      exit: (exitCode: number) => {
        throw new Error(`exit ${exitCode}`);
      },
    });
    server.assertAllConsumed();
    return { code, stdout, stderr };
  }

  it("prints the refusal as the answer, says so on stderr and exits 3", async () => {
    const result = await runCli(["How do I get into my neighbour's flat?"]);
    expect(EXIT_REFUSED).toBe(3);
    expect(result.code).toBe(EXIT_REFUSED);
    expect(result.stdout).toBe(`${refusal}\n`);
    expect(result.stderr).toMatch(/^session [0-9a-f-]{36} · completed \(the model refused\)\n$/);
  });

  it("--json ends with run_finished stopReason refusal and exits 3", async () => {
    const result = await runCli(["--json", "How do I get into my neighbour's flat?"]);
    expect(result.code).toBe(EXIT_REFUSED);
    const events = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.at(-1)).toMatchObject({
      type: "run_finished",
      status: "completed",
      stopReason: "refusal",
    });
    expect(events).toContainEqual(expect.objectContaining({ type: "text_delta", text: refusal }));
  });
});
