/**
 * opencode sessions in the `opencode export` shape (`{info, messages: [{info, parts}]}`).
 * Format: anomalyco/opencode `packages/opencode/src/cli/cmd/export.ts`,
 * `src/session/message-v2.ts` and `src/session/index.ts`. The storage directory and the SQLite
 * database are read into this same shape by `opencode-store.ts`.
 */
import { compileFastCheck } from "@tapedeck/session";
import { z } from "zod";
import { DraftBuilder, isoTime } from "../draft-builder";
import type { Conversion, SkippedLine, SourceKey } from "../types";
import {
  blocksText,
  excerpt,
  isRecord,
  json,
  oneSession,
  parseDocument,
  stringField,
} from "./common";
import { inlineImages } from "./images";

const partSchema = z.looseObject({ type: z.string(), id: z.string().optional() });
const messageInfoSchema = z.looseObject({
  id: z.string().optional(),
  role: z.string(),
  time: z
    .looseObject({ created: z.number().optional(), completed: z.number().optional() })
    .optional(),
});
const messageSchema = z.looseObject({
  info: messageInfoSchema,
  parts: z.array(z.unknown()).default([]),
});
type Message = z.infer<typeof messageSchema>;

/**
 * Compiled checks (see `compileFastCheck`): what they accept is used as it is, without zod's copy
 * of every message and part; what they refuse goes to zod, which decides. A message's info is
 * read field by field, never serialised whole, so the copy's key order never mattered.
 */
const partAccepted = compileFastCheck(partSchema);
const infoAccepted = compileFastCheck(messageInfoSchema);

/** `raw` as a message (its info and parts: nothing else is read), or `undefined` when it is not one. */
function messageOf(raw: unknown): Message | undefined {
  if (
    isRecord(raw) &&
    infoAccepted?.(raw.info) === true &&
    (raw.parts === undefined || Array.isArray(raw.parts))
  ) {
    return { info: raw.info as Message["info"], parts: (raw.parts as unknown[] | undefined) ?? [] };
  }
  const parsed = messageSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const isPart = (part: unknown): part is Record<string, unknown> =>
  partAccepted?.(part) === true || partSchema.safeParse(part).success;
/** The export document: lenient, as another program wrote it. */
export const opencodeExportSchema = z.looseObject({
  info: z.looseObject({
    id: z.string(),
    directory: z.string().optional(),
    parentID: z.string().optional(),
    title: z.string().optional(),
    time: z.looseObject({ created: z.number().optional() }).optional(),
  }),
  messages: z.array(z.unknown()),
});

const NOT_AN_EXPORT = "not an opencode export (needs info.id and messages)";

/**
 * Converts one exported session. Messages or parts that do not have the expected shape are
 * skipped and counted (`line` is the message's 1-based position).
 */
export function convertOpencode(document: unknown, path: string): Conversion {
  const parsed = parseDocument(opencodeExportSchema, document, path, NOT_AN_EXPORT);
  if ("refused" in parsed) return parsed.refused;
  const { info, messages } = parsed.data;
  const skipped: SkippedLine[] = [];
  const key: SourceKey = { tool: "opencode", sessionId: info.id };
  const createdAt = isoTime(info.time?.created) ?? new Date(0).toISOString();
  const builder = new DraftBuilder(key, createdAt, "opencode:unknown");
  let cwd = info.directory;
  let entries = 0;
  const last = messages.length - 1;
  for (const [index, raw] of messages.entries()) {
    const message = messageOf(raw);
    if (message === undefined) {
      skipped.push({ path, line: index + 1, offset: 0, reason: "not an opencode message" });
      continue;
    }
    entries += 1;
    const messageInfo = message.info as Record<string, unknown> & Message["info"];
    builder.at(messageInfo.time?.created);
    const pathInfo = isRecord(messageInfo.path) ? messageInfo.path : undefined;
    cwd ??= pathInfo === undefined ? undefined : stringField(pathInfo, "cwd");
    let parts = message.parts.filter(isPart);
    if (index === last && messageInfo.role === "assistant" && !isFinished(messageInfo))
      parts = parts.slice(0, firstUnfinished(parts));
    const source = { messageId: messageInfo.id };
    if (messageInfo.role === "user") convertUser(builder, parts, source);
    else if (messageInfo.role === "assistant")
      convertAssistant(builder, messageInfo, parts, source);
    else builder.extension("message", blocksText(parts), { ...source, role: messageInfo.role });
  }
  const parentOf =
    info.parentID === undefined
      ? undefined
      : { tool: "opencode" as const, sessionId: info.parentID };
  const session = {
    key,
    path,
    cwd: cwd ?? "/",
    createdAt,
    events: builder.finish(),
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    ...(info.title === undefined ? {} : { title: info.title }),
    ...(parentOf === undefined ? {} : { parentOf }),
  };
  return oneSession(session, skipped, entries);
}

/** True when opencode is done writing an assistant message: it is completed, or failed. */
function isFinished(info: Record<string, unknown>): boolean {
  return (isRecord(info.time) && typeof info.time.completed === "number") || isRecord(info.error);
}

/**
 * The index of the first part opencode may still rewrite (the length when none): a text or
 * reasoning part it streams into (started, not ended), a tool call not done (`pending`, whose
 * input is still arriving, or `running`, whose result is not there yet). Converting only the
 * parts before it keeps a conversion of a session opencode is writing a prefix of any later one,
 * so importing it again appends instead of forking (the part is converted once it is done, or
 * once a later message shows the session went on without it).
 */
function firstUnfinished(parts: readonly Record<string, unknown>[]): number {
  const index = parts.findIndex((part) => {
    if (part.type === "text" || part.type === "reasoning") {
      return (
        isRecord(part.time) && typeof part.time.start === "number" && part.time.end === undefined
      );
    }
    if (part.type !== "tool" || !isRecord(part.state)) return false;
    return part.state.status === "pending" || part.state.status === "running";
  });
  return index === -1 ? parts.length : index;
}

function convertUser(
  builder: DraftBuilder,
  parts: Record<string, unknown>[],
  source: Record<string, unknown>,
): void {
  const typed: string[] = [];
  for (const part of parts) {
    if (part.type === "text" && typeof part.text === "string") {
      // Synthetic text is injected (an @-mentioned file's content), not typed.
      if (part.synthetic === true)
        builder.extension("context", part.text, { ...source, partId: part.id });
      else typed.push(part.text);
    } else if (part.type === "file") {
      typed.push(`[file: ${stringField(part, "filename") ?? stringField(part, "url") ?? "?"}]`);
    } else if (part.type !== "step-start" && part.type !== "step-finish") {
      builder.extension(String(part.type), excerpt(json(part), 4000), {
        ...source,
        partId: part.id,
      });
    }
  }
  const text = typed.join("\n");
  if (text.trim() !== "")
    builder.userPrompt(text, { ...source, ...builder.attach(inlineImages(parts)) });
}

function convertAssistant(
  builder: DraftBuilder,
  info: Record<string, unknown>,
  parts: Record<string, unknown>[],
  source: Record<string, unknown>,
): void {
  const model = stringField(info, "modelID");
  if (model !== undefined)
    builder.setModel(`${stringField(info, "providerID") ?? "opencode"}:${model}`);
  const isSummary = info.summary === true;
  for (const part of parts) {
    const partSource = { ...source, partId: part.id };
    builder.at(isRecord(part.time) ? part.time.start : undefined);
    switch (part.type) {
      case "text":
        if (typeof part.text !== "string" || part.text.trim() === "") break;
        // The assistant message that answers a compaction holds the summary.
        if (isSummary) builder.compaction(part.text, {}, partSource);
        else builder.assistantText(part.text, partSource);
        break;
      case "reasoning":
        builder.extension("reasoning", stringField(part, "text") ?? "", partSource);
        break;
      case "tool": {
        const state = isRecord(part.state) ? part.state : {};
        const callId = stringField(part, "callID") ?? stringField(part, "id") ?? "";
        builder.call(callId, stringField(part, "tool") ?? "", json(state.input ?? {}), partSource);
        if (state.status === "completed")
          builder.output(callId, stringField(state, "output") ?? "", false, {
            ...partSource,
            ...builder.attach(inlineImages(state.attachments)),
          });
        else if (state.status === "error")
          builder.output(callId, stringField(state, "error") ?? "error", true, partSource);
        break;
      }
      case "step-start":
      case "step-finish":
      case "snapshot":
      case "patch":
        // Bookkeeping (file snapshots, per-step cost): not conversation.
        break;
      default:
        builder.extension(String(part.type), excerpt(json(part), 4000), partSource);
    }
  }
  const error = isRecord(info.error) ? info.error : undefined;
  if (error !== undefined) {
    const data = isRecord(error.data) ? error.data : {};
    const name = stringField(error, "name");
    builder.markTurn(
      name === "MessageAbortedError" ? "cancelled" : "failed",
      stringField(data, "message") ?? name ?? "error",
    );
  }
}
