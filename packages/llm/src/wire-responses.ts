import { lazySchema, matchSurface, type SurfaceItem } from "@tapedeck/session";
import { z } from "zod";
import { compactionMessage, compactionSummary } from "./compaction";
import { LlmError } from "./errors";
import type { LlmRequest, ToolDefinition } from "./llm-provider";

/** One Responses API input item as Tapedeck sends it. */
export type ResponsesInputItem =
  | { type: "message"; role: "system" | "developer" | "user" | "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string };

/** A function tool in the Responses API's shape. */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** The Responses API `input` for surface items (compactions become prefixed user messages). */
export function toResponsesInput(input: readonly SurfaceItem[]): ResponsesInputItem[] {
  return input.map(toResponsesItem);
}

function toResponsesItem(item: SurfaceItem): ResponsesInputItem {
  return matchSurface<SurfaceItem, ResponsesInputItem>(item, {
    message: (message) => ({ type: "message", role: message.role, content: message.content }),
    function_call: (call) => ({
      type: "function_call",
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
    }),
    function_call_output: (output) => ({
      type: "function_call_output",
      call_id: output.callId,
      output: output.output,
    }),
    compaction: (compaction) => ({
      type: "message",
      role: "user",
      content: compactionMessage(compaction.summary),
    }),
  });
}

/** Tool definitions in the Responses API's shape (`strict: false`: schemas are not rewritten). */
export function toResponsesTools(tools: readonly ToolDefinition[]): ResponsesFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

// Built on first use (`lazySchema`): commands that never parse a request body do not build them.
const responsesItemSchema = lazySchema(() => {
  const contentSchema = z.union([
    z.string(),
    z.array(z.looseObject({ text: z.string().optional() })),
    z.null(),
  ]);
  return z.looseObject({
    type: z.string().optional(),
    role: z.string().optional(),
    content: contentSchema.optional(),
    call_id: z.string().optional(),
    name: z.string().optional(),
    arguments: z.string().optional(),
    output: contentSchema.optional(),
  });
});

const responsesBodySchema = lazySchema(() =>
  z.looseObject({
    model: z.string(),
    instructions: z.string().nullable().optional(),
    input: z.union([z.string(), z.array(responsesItemSchema())]),
    tools: z
      .array(
        z.looseObject({
          type: z.string(),
          name: z.string().optional(),
          description: z.string().nullable().optional(),
          parameters: z.record(z.string(), z.unknown()).nullable().optional(),
        }),
      )
      .optional(),
    max_output_tokens: z.number().nullable().optional(),
    stream: z.boolean().nullable().optional(),
  }),
);

/**
 * Rebuilds the {@link LlmRequest} behind a `POST /v1/responses` body (the inverse of what the
 * Responses provider sends), so a server can digest it like the agent did.
 *
 * @throws LlmError `INVALID_REQUEST` for a body or item Tapedeck would not send.
 */
export function llmRequestFromResponsesBody(body: unknown): LlmRequest {
  const parsed = responsesBodySchema().safeParse(body);
  if (!parsed.success) throw invalid(`not a Responses API request: ${parsed.error.message}`);
  const value = parsed.data;
  const input: SurfaceItem[] =
    typeof value.input === "string"
      ? [{ type: "message", role: "user", content: value.input }]
      : value.input.map((item, index) => responsesItemToSurface(item, index));
  const request: LlmRequest = {
    model: value.model,
    input,
    tools: (value.tools ?? []).map((tool, index) => {
      if (tool.type !== "function" || tool.name === undefined) {
        throw invalid(
          `tools[${index}] is a ${JSON.stringify(tool.type)} tool; only function tools are supported`,
        );
      }
      return {
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.parameters ?? {},
      };
    }),
  };
  if (typeof value.instructions === "string") request.instructions = value.instructions;
  if (typeof value.max_output_tokens === "number")
    request.maxOutputTokens = value.max_output_tokens;
  return request;
}

function responsesItemToSurface(
  item: z.infer<ReturnType<typeof responsesItemSchema>>,
  index: number,
): SurfaceItem {
  if (item.type === "function_call") {
    if (item.call_id === undefined || item.name === undefined || item.arguments === undefined) {
      throw invalid(`input[${index}]: function_call needs call_id, name and arguments`);
    }
    return {
      type: "function_call",
      callId: item.call_id,
      name: item.name,
      arguments: item.arguments,
    };
  }
  if (item.type === "function_call_output") {
    if (item.call_id === undefined || item.output === undefined) {
      throw invalid(`input[${index}]: function_call_output needs call_id and output`);
    }
    return {
      type: "function_call_output",
      callId: item.call_id,
      output: joinText(item.output),
      isError: false,
    };
  }
  if (item.type === undefined || item.type === "message") {
    const role = roleOf(item.role, `input[${index}]`);
    return messageItem(role, joinText(item.content ?? ""));
  }
  throw invalid(
    `input[${index}] has type ${JSON.stringify(item.type)}, which Tapedeck never sends`,
  );
}

/** A message item, or a compaction item for a user message carrying a summary. */
export function messageItem(
  role: "system" | "developer" | "user" | "assistant",
  content: string,
): SurfaceItem {
  const summary = role === "user" ? compactionSummary(content) : undefined;
  return summary === undefined
    ? { type: "message", role, content }
    : { type: "compaction", summary };
}

/** Text of a string or of an array of text parts, concatenated. */
export function joinText(
  content: string | readonly { text?: string | undefined }[] | null,
): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text ?? "").join("");
}

/** A role name checked against the four Tapedeck knows. */
export function roleOf(
  role: string | undefined,
  where: string,
): "system" | "developer" | "user" | "assistant" {
  if (role === "system" || role === "developer" || role === "user" || role === "assistant") {
    return role;
  }
  throw invalid(
    `${where} has role ${JSON.stringify(role)}; expected system, developer, user or assistant`,
  );
}

function invalid(message: string): LlmError {
  return new LlmError("INVALID_REQUEST", message, { status: 400 });
}
