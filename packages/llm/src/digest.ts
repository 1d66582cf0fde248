import { createHash } from "node:crypto";
import { type SurfaceItem, toSurfaceItem } from "@tapedeck/session";
import type { LlmRequest, ToolDefinition } from "./llm-provider";

/**
 * A surface item as the digest sees it: only what reaches the model over the wire. `isError` of a
 * tool output is dropped because neither OpenAI API carries it (the agent puts the error into the
 * output text), so a request rebuilt from HTTP digests the same as the one the agent built.
 */
export type NormalizedItem =
  | { type: "message"; role: string; content: string }
  | { type: "function_call"; callId: string; name: string; arguments: string }
  | { type: "function_call_output"; callId: string; output: string }
  | { type: "compaction"; summary: string };

/**
 * The model-visible part of a request. `instructions` become a leading `system` message because
 * Chat Completions has no separate field for them; so a request digests the same whichever API
 * carried it. `model`, `tools` and `maxOutputTokens` are not part of it (the log keeps the model
 * and the tools digest in their own fields).
 */
export function normalizeRequestInput(
  request: Pick<LlmRequest, "instructions" | "input">,
): NormalizedItem[] {
  const items: NormalizedItem[] = [];
  if (request.instructions !== undefined && request.instructions !== "") {
    items.push({ type: "message", role: "system", content: request.instructions });
  }
  for (const item of request.input) items.push(normalizeItem(item));
  return items;
}

/** The item's model-visible fields (`toSurfaceItem`), without an output's `isError`. */
function normalizeItem(item: SurfaceItem): NormalizedItem {
  const visible = toSurfaceItem(item);
  if (visible.type !== "function_call_output") return visible;
  // No `isError`: digests recorded in logs must not change.
  return { type: "function_call_output", callId: visible.callId, output: visible.output };
}

/**
 * Stable digest of the model-visible input of a request (instructions + input items, see
 * {@link normalizeRequestInput}): `sha256:` + 64 hex digits. Equal for requests that look the same
 * to the model, whatever key order or API they travelled in. The agent writes it as
 * `model/request.inputDigest`.
 */
export function requestDigest(request: Pick<LlmRequest, "instructions" | "input">): string {
  return digestOf({ v: 1, input: normalizeRequestInput(request) });
}

/**
 * Stable digest of tool definitions (name, description, parameters; key order inside a schema
 * does not matter, tool order does). The agent writes it as `model/request.toolsDigest`.
 */
export function toolsDigest(tools: readonly ToolDefinition[]): string {
  return digestOf({
    v: 1,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    })),
  });
}

function digestOf(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value)).digest("hex")}`;
}

/**
 * JSON with object keys sorted at every depth and `undefined` members dropped, so equal values
 * always give equal text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
}
