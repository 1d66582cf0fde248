/**
 * Gemini CLI checkpoints: `~/.gemini/tmp/<project hash>/checkpoint-<tag>.json`, what `/chat save
 * <tag>` writes — the model's history as Gemini's API takes it (`Content[]`: `role` `user` or
 * `model`, `parts` of `text`, `thought`, `functionCall`, `functionResponse`), as `{history,
 * authType}` or, before, the bare array. Format: google-gemini/gemini-cli
 * `packages/core/src/core/logger.ts` (`Checkpoint`, `saveCheckpoint`; Apache-2.0), read from its
 * public definition, no code taken.
 */
import { basename, dirname } from "node:path";
import { z } from "zod";
import { DraftBuilder } from "../draft-builder";
import type { Conversion, SkippedLine, SourceKey } from "../types";
import { isRecord, json, oneSession, parseDocument } from "./common";
import { inlineImages } from "./images";

const contentSchema = z.looseObject({
  role: z.string().optional(),
  parts: z.array(z.unknown()).optional(),
});

const checkpointSchema = z.union([
  z.looseObject({ history: z.array(z.unknown()) }).transform((value) => value.history),
  z.array(z.unknown()),
]);

const NOT_A_CHECKPOINT = "not a Gemini CLI checkpoint (needs a history of model contents)";

/**
 * What Gemini CLI sends first in every chat (its environment: date, system, folder listing), and
 * the model's acknowledgement: context, not a prompt typed by the person.
 */
const CONTEXT_PREFIX = "This is the Gemini CLI. We are setting up the context for our chat.";

/** The checkpoint's tag, from its file name (`checkpoint-<tag>.json`, the tag URI-encoded). */
export function checkpointTag(path: string): string {
  const encoded = basename(path)
    .replace(/^checkpoint-/u, "")
    .replace(/\.json$/u, "");
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** True for a checkpoint's file name. */
export function isGeminiCheckpoint(path: string): boolean {
  const name = basename(path);
  return name.startsWith("checkpoint-") && name.endsWith(".json");
}

/**
 * Converts one checkpoint. The source session is the project and the tag
 * (`<project hash>/checkpoint-<tag>`): saving under the same tag again writes the longer history,
 * which is appended. A checkpoint records no times: every event is timed `createdAt` (the caller
 * passes the file's creation time, which rewriting it keeps). User contents with text open turns;
 * `functionResponse` parts are the outputs of the calls (by `id`, else the oldest call of that
 * name); `thought` parts are `x-gemini-thinking`; Gemini CLI's opening context and the model's
 * acknowledgement are `x-gemini-context`. The session's `cwd` is the project folder.
 */
export function convertGeminiCheckpoint(
  document: unknown,
  path: string,
  createdAt: string,
): Conversion {
  const parsed = parseDocument(checkpointSchema, document, path, NOT_A_CHECKPOINT);
  if ("refused" in parsed) return parsed.refused;
  const project = dirname(path);
  const key: SourceKey = {
    tool: "gemini",
    sessionId: `${basename(project)}/checkpoint-${checkpointTag(path)}`,
  };
  const builder = new DraftBuilder(key, createdAt, "google:unknown");
  const calls = new CallIds();
  const skipped: SkippedLine[] = [];
  let entries = 0;
  let context = false;
  for (const [index, raw] of parsed.data.entries()) {
    const content = contentSchema.safeParse(raw);
    if (!content.success || content.data.parts === undefined) {
      skipped.push({ path, line: 0, offset: 0, reason: `content ${index + 1}: not a Content` });
      continue;
    }
    entries += 1;
    const parts = content.data.parts.filter(isRecord);
    const text = textOf(parts);
    if (index === 0 && content.data.role === "user" && text.startsWith(CONTEXT_PREFIX)) {
      builder.extension("context", text);
      context = true;
    } else if (index === 1 && context && content.data.role === "model" && !hasCalls(parts)) {
      builder.extension("context", text);
    } else if (content.data.role === "model") modelContent(builder, parts, calls);
    else userContent(builder, parts, calls);
  }
  const session = {
    key,
    path,
    cwd: project,
    createdAt,
    events: builder.finish(),
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
  };
  return oneSession(session, skipped, entries);
}

/** Source ids for calls: the part's `id`, else `<name>#<n>` answered in order. */
class CallIds {
  private readonly waiting = new Map<string, string[]>();
  private count = 0;

  called(call: Record<string, unknown>): string {
    const name = typeof call.name === "string" ? call.name : "unknown";
    this.count += 1;
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `${name}#${this.count}`;
    const queue = this.waiting.get(name) ?? [];
    queue.push(id);
    this.waiting.set(name, queue);
    return id;
  }

  answered(response: Record<string, unknown>): string {
    const name = typeof response.name === "string" ? response.name : "unknown";
    const queue = this.waiting.get(name) ?? [];
    if (typeof response.id === "string" && response.id !== "") {
      const at = queue.indexOf(response.id);
      if (at >= 0) queue.splice(at, 1);
      return response.id;
    }
    return queue.shift() ?? `${name}#?`;
  }
}

function modelContent(
  builder: DraftBuilder,
  parts: Record<string, unknown>[],
  calls: CallIds,
): void {
  for (const part of parts) {
    if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      const name = typeof call.name === "string" ? call.name : "unknown";
      builder.call(calls.called(call), name, json(call.args ?? {}));
    } else if (typeof part.text === "string" && part.text !== "") {
      if (part.thought === true) builder.extension("thinking", part.text);
      else builder.assistantText(part.text);
    }
  }
}

function userContent(
  builder: DraftBuilder,
  parts: Record<string, unknown>[],
  calls: CallIds,
): void {
  const text = textOf(parts);
  if (text.trim() !== "") builder.userPrompt(text, builder.attach(inlineImages(parts)));
  for (const part of parts) {
    if (!isRecord(part.functionResponse)) continue;
    const response = part.functionResponse;
    const value = isRecord(response.response) ? response.response : {};
    const output = value.output ?? value.error ?? value;
    builder.output(
      calls.answered(response),
      typeof output === "string" ? output : json(output),
      value.error !== undefined,
      builder.attach(inlineImages(response.parts)),
    );
  }
}

/** The text parts (not thoughts) joined; an inline file is `[file: mime type]`. */
function textOf(parts: Record<string, unknown>[]): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part.text === "string" && part.thought !== true) texts.push(part.text);
    else if (isRecord(part.inlineData) || isRecord(part.fileData)) {
      const data = (part.inlineData ?? part.fileData) as Record<string, unknown>;
      texts.push(`[file: ${typeof data.mimeType === "string" ? data.mimeType : "unknown"}]`);
    }
  }
  return texts.join("\n");
}

function hasCalls(parts: Record<string, unknown>[]): boolean {
  return parts.some((part) => isRecord(part.functionCall));
}
