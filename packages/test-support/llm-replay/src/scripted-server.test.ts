import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedServer, startScriptedServer } from "./scripted-server";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startScriptedServer", () => {
  it("streams the scripted tool calls exactly (hidden characters, empty names) and keeps requests", async () => {
    server = await startScriptedServer([
      {
        text: "Running it.",
        toolCalls: [
          { name: "run_command", arguments: { command: "echo \u001b[2K\r\u202e" } },
          { name: "", arguments: "{}" },
        ],
      },
      { text: "done" },
    ]);
    const client = new OpenAI({ apiKey: "k", baseURL: server.url, maxRetries: 0 });
    const first = await client.chat.completions
      .stream({ model: "scripted", messages: [{ role: "user", content: "hi" }] })
      .finalChatCompletion();
    const message = first.choices[0]?.message;
    expect(message?.content).toBe("Running it.");
    expect(
      message?.tool_calls?.map((call) => (call.type === "function" ? call.function : undefined)),
    ).toEqual([
      { name: "run_command", arguments: JSON.stringify({ command: "echo \u001b[2K\r\u202e" }) },
      { name: "", arguments: "{}" },
    ]);
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    const second = await client.chat.completions
      .stream({ model: "scripted", messages: [{ role: "user", content: "again" }] })
      .finalChatCompletion();
    expect(second.choices[0]?.message.content).toBe("done");
    expect(server.requests().map((body) => body.messages)).toEqual([
      [{ role: "user", content: "hi" }],
      [{ role: "user", content: "again" }],
    ]);
    expect(server.remaining()).toBe(0);
    await expect(
      client.chat.completions.create({ model: "scripted", messages: [], stream: true }),
    ).rejects.toThrow(/the script has 2 responses/);
  });

  it("can stall a stream forever (until close)", async () => {
    server = await startScriptedServer([{ text: "partial", stall: true }]);
    const client = new OpenAI({ apiKey: "k", baseURL: server.url, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "scripted",
      messages: [],
      stream: true,
    });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    expect((await iterator.next()).value?.choices[0]?.delta.content).toBe("partial");
    const pending = await Promise.race([
      iterator.next().then(() => "ended"),
      new Promise((resolve) => setTimeout(() => resolve("still open"), 200)),
    ]);
    expect(pending).toBe("still open");
  });
});
