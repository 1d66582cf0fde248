/**
 * Gemini CLI saved chats: `~/.gemini/tmp/<project hash>/chats/session-*.json`, one JSON document
 * per session that Gemini CLI rewrites as the conversation grows. Format: google-gemini/gemini-cli
 * `packages/core/src/services/chatRecordingService.ts` (`ConversationRecord`, `MessageRecord`,
 * `ToolCallRecord`; Apache-2.0), read from its public definition, no code taken.
 */
import { dirname } from "node:path";
import { z } from "zod";
import { DraftBuilder, isoTime } from "../draft-builder";
import type { Conversion, SkippedLine, SourceKey } from "../types";
import { isRecord, json, oneSession, parseDocument } from "./common";
import { inlineImages } from "./images";

const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  status: z.string().optional(),
  resultDisplay: z.unknown().optional(),
});

const messageSchema = z.looseObject({
  id: z.string().optional(),
  timestamp: z.string().optional(),
  type: z.string(),
  content: z.unknown().optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  thoughts: z
    .array(z.looseObject({ subject: z.string().optional(), description: z.string().optional() }))
    .optional(),
  model: z.string().optional(),
});

/** A saved chat as Gemini CLI writes it (lenient: other fields are kept and ignored). */
export const geminiChatSchema = z.looseObject({
  sessionId: z.string(),
  projectHash: z.string().optional(),
  startTime: z.string().optional(),
  messages: z.array(z.unknown()),
});

const NOT_A_CHAT = "not a Gemini CLI chat (needs sessionId and messages)";

/**
 * Converts one saved chat. User messages are prompts; a `gemini` message's thoughts become
 * `x-gemini-thinking`, its text the assistant message, its tool calls `function_call`s followed
 * by their results (calls first: Gemini CLI fills results in later, so a file read while a tool
 * runs converts to a prefix of the finished one); `info`, `error` and `warning` messages are
 * `x-gemini-<type>`. The chat records no working directory (only a hash of it): the session's is
 * the chat's project folder, `<project hash>/` above `chats/` (the hash is kept in
 * `origin.projectHash`).
 */
export function convertGemini(document: unknown, path: string): Conversion {
  const parsed = parseDocument(geminiChatSchema, document, path, NOT_A_CHAT);
  if ("refused" in parsed) return parsed.refused;
  const chat = parsed.data;
  const skipped: SkippedLine[] = [];
  const key: SourceKey = { tool: "gemini", sessionId: chat.sessionId };
  const createdAt = isoTime(chat.startTime) ?? new Date(0).toISOString();
  const builder = new DraftBuilder(key, createdAt, "google:unknown");
  let entries = 0;
  for (const [index, raw] of chat.messages.entries()) {
    const message = messageSchema.safeParse(raw);
    if (!message.success) {
      skipped.push({
        path,
        line: 0,
        offset: 0,
        reason: `message ${index + 1}: not a Gemini CLI message`,
      });
      continue;
    }
    entries += 1;
    convertMessage(builder, message.data);
  }
  const session = {
    key,
    path,
    cwd: dirname(dirname(path)),
    createdAt,
    events: builder.finish(),
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    ...(chat.projectHash === undefined ? {} : { originFields: { projectHash: chat.projectHash } }),
  };
  return oneSession(session, skipped, entries);
}

type Message = z.infer<typeof messageSchema>;

function convertMessage(builder: DraftBuilder, message: Message): void {
  builder.at(message.timestamp);
  const source = message.id === undefined ? {} : { messageId: message.id };
  const text = partsText(message.content);
  if (message.type === "user") {
    if (text.trim() !== "")
      builder.userPrompt(text, {
        ...source,
        ...builder.attach(inlineImages(partList(message.content))),
      });
    return;
  }
  if (message.type !== "gemini") {
    builder.extension(message.type.replace(/[^a-z0-9-]/gu, "-"), text, source);
    return;
  }
  for (const thought of message.thoughts ?? []) {
    builder.extension(
      "thinking",
      [thought.subject, thought.description].filter(Boolean).join(": "),
      source,
    );
  }
  if (text !== "") builder.assistantText(text, source);
  const calls = message.toolCalls ?? [];
  for (const call of calls) {
    builder.call(call.id ?? "", call.name ?? "unknown", json(call.args ?? {}), source);
  }
  for (const call of calls) {
    if (call.result === undefined || call.result === null) continue;
    const failed = call.status === "error" || call.status === "cancelled";
    builder.output(call.id ?? "", resultText(call), failed, {
      ...source,
      ...builder.attach(resultImages(call.result)),
    });
  }
  builder.setModel(message.model === undefined ? undefined : `google:${message.model}`);
}

/** Text of a `PartListUnion`: a string, a part, or a list of them (`text` parts joined). */
function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? content : content === undefined ? [] : [content];
  return parts
    .map((part) =>
      typeof part === "string"
        ? part
        : isRecord(part) && typeof part.text === "string"
          ? part.text
          : "",
    )
    .filter((part) => part !== "")
    .join("\n");
}

/** A `PartListUnion` as a list of parts. */
function partList(content: unknown): unknown[] {
  return Array.isArray(content) ? content : content === undefined ? [] : [content];
}

/** The images of a tool call's result: `inlineData` parts beside or inside its `functionResponse`. */
function resultImages(result: unknown): ReturnType<typeof inlineImages> {
  return partList(result).flatMap((part) => {
    if (!isRecord(part)) return [];
    const own = inlineImages([part]);
    const inner = isRecord(part.functionResponse) ? part.functionResponse.parts : undefined;
    return [...own, ...inlineImages(inner)];
  });
}

/** A tool call's result: the `functionResponse`'s output or error, else what was displayed. */
function resultText(call: z.infer<typeof toolCallSchema>): string {
  const parts = Array.isArray(call.result) ? call.result : [call.result];
  const texts: string[] = [];
  for (const part of parts) {
    if (!isRecord(part)) continue;
    const response = isRecord(part.functionResponse) ? part.functionResponse.response : undefined;
    if (isRecord(response)) {
      const value = response.output ?? response.error ?? response;
      texts.push(typeof value === "string" ? value : json(value));
    } else if (typeof part.text === "string") texts.push(part.text);
  }
  if (texts.length > 0) return texts.join("\n");
  return typeof call.resultDisplay === "string"
    ? call.resultDisplay
    : json(call.resultDisplay ?? "");
}
