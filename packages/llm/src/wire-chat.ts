import { lazySchema, type SurfaceItem } from "@tapedeck/session";
import { z } from "zod";
import { compactionMessage } from "./compaction";
import { LlmError } from "./errors";
import type { LlmRequest, ToolDefinition } from "./llm-provider";
import { joinText, messageItem, roleOf } from "./wire-responses";

/** A tool call inside an assistant message of Chat Completions. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One Chat Completions message as Tapedeck sends it. */
export type ChatMessage =
  | { role: "system" | "developer" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A function tool in the Chat Completions shape. */
export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * Chat Completions `messages` for a request. Instructions lead as a `system` message; an
 * assistant message and the function calls right after it share one assistant message (calls
 * with no text before them get `content: null`, so the text/no-text distinction survives the
 * round trip); tool outputs become `tool` messages; compactions become prefixed user messages.
 */
export function toChatMessages(request: Pick<LlmRequest, "instructions" | "input">): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.instructions !== undefined && request.instructions !== "") {
    messages.push({ role: "system", content: request.instructions });
  }
  let assistant: Extract<ChatMessage, { role: "assistant" }> | undefined;
  for (const item of request.input) {
    if (item.type === "function_call") {
      if (assistant === undefined) {
        assistant = { role: "assistant", content: null };
        messages.push(assistant);
      }
      assistant.tool_calls ??= [];
      assistant.tool_calls.push({
        id: item.callId,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      });
      continue;
    }
    assistant = undefined;
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          assistant = { role: "assistant", content: item.content };
          messages.push(assistant);
        } else {
          messages.push({ role: item.role, content: item.content });
        }
        break;
      case "function_call_output":
        messages.push({ role: "tool", tool_call_id: item.callId, content: item.output });
        break;
      case "compaction":
        messages.push({ role: "user", content: compactionMessage(item.summary) });
        break;
    }
  }
  return messages;
}

/** Tool definitions in the Chat Completions shape. */
export function toChatTools(tools: readonly ToolDefinition[]): ChatFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Built on first use (`lazySchema`): commands that never parse a request body do not build it. */
const chatBodySchema = lazySchema(() => {
  const textPartsSchema = z.array(z.looseObject({ text: z.string().optional() }));

  const chatMessageSchema = z.looseObject({
    role: z.string(),
    content: z.union([z.string(), textPartsSchema, z.null()]).optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          function: z.looseObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .nullable()
      .optional(),
  });

  return z.looseObject({
    model: z.string(),
    messages: z.array(chatMessageSchema),
    tools: z
      .array(
        z.looseObject({
          type: z.string(),
          function: z
            .looseObject({
              name: z.string(),
              description: z.string().nullable().optional(),
              parameters: z.record(z.string(), z.unknown()).nullable().optional(),
            })
            .optional(),
        }),
      )
      .nullable()
      .optional(),
    max_tokens: z.number().nullable().optional(),
    max_completion_tokens: z.number().nullable().optional(),
    stream: z.boolean().nullable().optional(),
  });
});

/**
 * Rebuilds the {@link LlmRequest} behind a `POST /v1/chat/completions` body. System messages stay
 * input items (instructions and leading system messages digest the same, see `requestDigest`).
 *
 * @throws LlmError `INVALID_REQUEST` for a body Tapedeck would not send.
 */
export function llmRequestFromChatBody(body: unknown): LlmRequest {
  const parsed = chatBodySchema().safeParse(body);
  if (!parsed.success) throw invalid(`not a Chat Completions request: ${parsed.error.message}`);
  const value = parsed.data;
  const input: SurfaceItem[] = [];
  value.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    if (message.role === "tool") {
      if (message.tool_call_id === undefined)
        throw invalid(`${where}: tool message needs tool_call_id`);
      input.push({
        type: "function_call_output",
        callId: message.tool_call_id,
        output: joinText(message.content ?? ""),
        isError: false,
      });
      return;
    }
    const role = roleOf(message.role, where);
    if (role === "assistant") {
      if (typeof message.content === "string" || Array.isArray(message.content)) {
        input.push({ type: "message", role, content: joinText(message.content) });
      }
      for (const call of message.tool_calls ?? []) {
        input.push({
          type: "function_call",
          callId: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
      return;
    }
    input.push(messageItem(role, joinText(message.content ?? "")));
  });
  const request: LlmRequest = {
    model: value.model,
    input,
    tools: (value.tools ?? []).map((tool, index) => {
      if (tool.type !== "function" || tool.function === undefined) {
        throw invalid(
          `tools[${index}] is a ${JSON.stringify(tool.type)} tool; only function tools are supported`,
        );
      }
      return {
        name: tool.function.name,
        description: tool.function.description ?? "",
        parameters: tool.function.parameters ?? {},
      };
    }),
  };
  const maxTokens = value.max_completion_tokens ?? value.max_tokens;
  if (typeof maxTokens === "number") request.maxOutputTokens = maxTokens;
  return request;
}

function invalid(message: string): LlmError {
  return new LlmError("INVALID_REQUEST", message, { status: 400 });
}
