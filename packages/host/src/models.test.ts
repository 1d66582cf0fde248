import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LlmConfigError } from "@tapedeck/llm";
import { afterEach, describe, expect, it } from "vitest";
import { checkModelId, FALLBACK_OPENAI_MODELS, listModels } from "./models";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(status: number, body: unknown): Promise<string> {
  server = createServer((request, response) => {
    response.writeHead(request.url === "/v1/models" ? status : 404, {
      "content-type": "application/json",
    });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe("listModels", () => {
  it("lists the server's models with the configured provider, the configured default first", async () => {
    const baseUrl = await serve(200, {
      object: "list",
      data: [{ id: "llama3" }, { id: "qwen2.5-coder" }],
    });
    expect(await listModels({ model: "openai-chat:qwen2.5-coder", baseUrl })).toEqual([
      "openai-chat:qwen2.5-coder",
      "openai-chat:llama3",
    ]);
  });

  it("falls back to the configured model when the server has no list endpoint", async () => {
    const baseUrl = await serve(404, { error: "not found" });
    expect(await listModels({ model: "openai-chat:llama3", baseUrl })).toEqual([
      "openai-chat:llama3",
    ]);
  });

  it("without a key or server offers OpenAI's common models after the configured one", async () => {
    expect(await listModels({ model: "openai:gpt-5" })).toEqual([
      "openai:gpt-5",
      ...FALLBACK_OPENAI_MODELS,
    ]);
  });
});

describe("checkModelId", () => {
  it("splits provider and model, a bare name meaning the Responses API", () => {
    expect(checkModelId("openai-chat:qwen2.5-coder:7b")).toEqual({
      provider: "openai-chat",
      model: "qwen2.5-coder:7b",
    });
    expect(checkModelId("gpt-4.1")).toEqual({ provider: "openai", model: "gpt-4.1" });
  });

  it.each(["anthropic:claude", "openai:"])("refuses %s with an LlmConfigError", (id) => {
    expect(() => checkModelId(id)).toThrow(LlmConfigError);
  });
});
