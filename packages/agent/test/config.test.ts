import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL, resolveConfig } from "../src/index";

describe("resolveConfig", () => {
  it("reads the environment and lets flags win", () => {
    const env = {
      TAPEDECK_HOME: "/tmp/td-home",
      TAPEDECK_MODEL: "openai-chat:llama3",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    };
    expect(resolveConfig(env)).toEqual({
      home: "/tmp/td-home",
      model: "openai-chat:llama3",
      apiKey: "sk-test",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(resolveConfig(env, { model: "openai:gpt-4.1", home: "rel" })).toMatchObject({
      model: "openai:gpt-4.1",
      home: path.resolve("rel"),
    });
  });

  it("uses defaults for unset or empty variables", () => {
    const config = resolveConfig({ TAPEDECK_MODEL: "", OPENAI_API_KEY: "" });
    expect(config.model).toBe(DEFAULT_MODEL);
    expect(config.apiKey).toBeUndefined();
    expect(config.home.endsWith(".tapedeck")).toBe(true);
  });

  it("refuses an unknown provider with a clear message", () => {
    expect(() => resolveConfig({ TAPEDECK_MODEL: "anthropic:claude" })).toThrow(
      /Unknown model provider "anthropic"/,
    );
  });
});
