import type { SurfaceItem } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { COMPACTION_PREFIX } from "./compaction";
import { canonicalJson, requestDigest, toolsDigest } from "./digest";
import type { LlmRequest } from "./llm-provider";
import { llmRequestFromChatBody, toChatMessages, toChatTools } from "./wire-chat";
import { llmRequestFromResponsesBody, toResponsesInput, toResponsesTools } from "./wire-responses";

const input: SurfaceItem[] = [
  { type: "message", role: "system", content: "You are terse." },
  { type: "compaction", summary: "The user asked about files." },
  { type: "message", role: "user", content: "List files, 请" },
  { type: "message", role: "assistant", content: "Looking." },
  { type: "function_call", callId: "c1", name: "ls", arguments: '{"path":"."}' },
  { type: "function_call", callId: "c2", name: "ls", arguments: '{"path":"src"}' },
  { type: "function_call_output", callId: "c1", output: "a.ts", isError: false },
  { type: "function_call_output", callId: "c2", output: "boom", isError: true },
  { type: "function_call", callId: "c3", name: "ls", arguments: "{}" },
  { type: "function_call_output", callId: "c3", output: "", isError: false },
  { type: "message", role: "assistant", content: "" },
];
const tools = [
  {
    name: "ls",
    description: "List",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];
const request: LlmRequest = { model: "m", instructions: "Be brief.", input, tools };

describe("requestDigest", () => {
  it("is a sha256 digest that ignores model, tools and maxOutputTokens", () => {
    const digest = requestDigest(request);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const other: LlmRequest = { ...request, model: "other", tools: [], maxOutputTokens: 5 };
    expect(requestDigest(other)).toBe(digest);
  });

  it("stays the digest logs already recorded for the same request", () => {
    expect(requestDigest(request)).toBe(
      "sha256:786e595330bcbf2abb0eb68008de1f79431fa8e2116912979757ce9b32beecd0",
    );
  });

  it("changes when any model-visible text changes", () => {
    const changed = input.map((item) =>
      item.type === "message" && item.role === "user" ? { ...item, content: "List files" } : item,
    );
    expect(requestDigest({ ...request, input: changed })).not.toBe(requestDigest(request));
    expect(requestDigest({ ...request, instructions: "Be long." })).not.toBe(
      requestDigest(request),
    );
  });

  it("treats instructions as a leading system message", () => {
    const moved: LlmRequest = {
      model: "m",
      input: [{ type: "message", role: "system", content: "Be brief." }, ...input],
      tools,
    };
    expect(requestDigest(moved)).toBe(requestDigest(request));
  });

  it("survives the Chat Completions wire format both ways", () => {
    const body = { model: "m", messages: toChatMessages(request), tools: toChatTools(tools) };
    const rebuilt = llmRequestFromChatBody(JSON.parse(JSON.stringify(body)));
    expect(requestDigest(rebuilt)).toBe(requestDigest(request));
    expect(toolsDigest(rebuilt.tools)).toBe(toolsDigest(tools));
  });

  it("survives the Responses API wire format both ways", () => {
    const body = {
      model: "m",
      instructions: request.instructions,
      input: toResponsesInput(input),
      tools: toResponsesTools(tools),
    };
    const rebuilt = llmRequestFromResponsesBody(JSON.parse(JSON.stringify(body)));
    expect(requestDigest(rebuilt)).toBe(requestDigest(request));
    expect(toolsDigest(rebuilt.tools)).toBe(toolsDigest(tools));
    expect(rebuilt.input[1]).toEqual({
      type: "compaction",
      summary: "The user asked about files.",
    });
  });

  it("sends compactions as user messages with the summary prefix", () => {
    const [, compaction] = toChatMessages({ input });
    expect(compaction).toEqual({
      role: "user",
      content: `${COMPACTION_PREFIX}The user asked about files.`,
    });
  });
});

describe("toolsDigest", () => {
  it("ignores key order inside schemas but not tool order", () => {
    const reordered = [
      {
        parameters: { properties: { path: { type: "string" } }, type: "object" },
        description: "List",
        name: "ls",
      },
    ];
    expect(toolsDigest(reordered)).toBe(toolsDigest(tools));
    const two = [...tools, { name: "cat", description: "Read", parameters: {} }];
    expect(toolsDigest([two[1]!, two[0]!])).not.toBe(toolsDigest(two));
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: undefined, x: 2 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[{"x":2,"z":1}]},"b":1}',
    );
  });
});

describe("wire request parsing", () => {
  it("rejects input items Tapedeck never sends", () => {
    expect(() =>
      llmRequestFromResponsesBody({ model: "m", input: [{ type: "reasoning", summary: [] }] }),
    ).toThrow(/input\[0\] has type "reasoning"/);
    expect(() =>
      llmRequestFromChatBody({ model: "m", messages: [{ role: "wizard", content: "x" }] }),
    ).toThrow(/messages\[0\] has role "wizard"/);
    expect(() => llmRequestFromChatBody({ messages: [] })).toThrow(
      /not a Chat Completions request/,
    );
  });
});
