import { describe, expect, it } from "vitest";
import { LlmError } from "./errors";
import { createOpenAIChatProvider } from "./openai-chat";
import { openAIIfLoaded } from "./openai-client";
import { createOpenAIResponsesProvider } from "./openai-responses";

describe("the openai module", () => {
  it("is loaded by a provider's first call, not by importing the package or making providers", async () => {
    const responses = createOpenAIResponsesProvider({ apiKey: "sk-test-lazy-0000" });
    createOpenAIChatProvider({ apiKey: "sk-test-lazy-0000" });
    expect(openAIIfLoaded()).toBeUndefined();
    // A call that fails at once (its fetch refuses) still maps the client's error.
    const failing = createOpenAIResponsesProvider({
      apiKey: "sk-test-lazy-0000",
      baseURL: "http://127.0.0.1:9/v1",
      maxRetries: 0,
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    });
    let caught: unknown;
    try {
      for await (const _part of failing.stream({ model: "m", input: [], tools: [] })) {
        // no parts expected
      }
    } catch (error) {
      caught = error;
    }
    expect(openAIIfLoaded()).toBeDefined();
    expect(LlmError.isInstance(caught) && caught.code).toBe("NETWORK");
    expect(responses.id).toBe("openai");
  });
});
