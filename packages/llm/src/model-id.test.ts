import { describe, expect, it } from "vitest";
import { LlmConfigError, LlmError } from "./errors";
import { parseModelId, resolveProvider } from "./model-id";

describe("parseModelId", () => {
  it("splits provider and model at the first colon", () => {
    expect(parseModelId("openai:gpt-4.1-mini")).toEqual({
      provider: "openai",
      model: "gpt-4.1-mini",
    });
    expect(parseModelId("openai-chat:qwen2.5-coder:7b")).toEqual({
      provider: "openai-chat",
      model: "qwen2.5-coder:7b",
    });
  });

  it("reads a bare model name as the openai provider", () => {
    expect(parseModelId("gpt-4.1-mini")).toEqual({ provider: "openai", model: "gpt-4.1-mini" });
  });

  it("refuses unknown providers and empty models with a config error", () => {
    expect(() => parseModelId("anthropic:claude")).toThrow(LlmConfigError);
    expect(() => parseModelId("anthropic:claude")).toThrow(/Unknown model provider "anthropic"/);
    expect(() => parseModelId("openai:")).toThrow(/names no model/);
    expect(() => parseModelId("")).toThrow(/names no model/);
  });
});

describe("resolveProvider", () => {
  it("says in one sentence which variable to set when the key is missing", () => {
    let error: unknown;
    try {
      resolveProvider("openai:gpt-4.1-mini", {});
    } catch (caught) {
      error = caught;
    }
    expect(LlmError.isInstance(error)).toBe(true);
    expect((error as LlmError).code).toBe("AUTH");
    expect((error as LlmError).message).toBe(
      "OPENAI_API_KEY is not set: set it to your OpenAI API key to use openai:gpt-4.1-mini.",
    );
    expect(() => resolveProvider("openai-chat:llama3", { OPENAI_API_KEY: " " })).toThrow(
      /set OPENAI_BASE_URL to your OpenAI-compatible server/,
    );
  });

  it("builds the provider the id names", () => {
    expect(resolveProvider("openai:gpt-4.1-mini", { OPENAI_API_KEY: "k" }).provider.id).toBe(
      "openai",
    );
    const chat = resolveProvider("openai-chat:llama3", {
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(chat.provider.id).toBe("openai-chat");
    expect(chat.model).toBe("llama3");
  });
});
