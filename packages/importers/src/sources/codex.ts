/**
 * Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, also `.jsonl.zst`).
 * Format: openai/codex `codex-rs/protocol/src/protocol.rs` (`RolloutLine`, `RolloutItem`) and
 * `codex-rs/protocol/src/models.rs` (`ResponseItem`).
 */
import { z } from "zod";
import { DraftBuilder, isoTime } from "../draft-builder";
import { draftStateSchema } from "../draft-state";
import type { Conversion, ConvertedSession, SkippedLine, SourceKey } from "../types";
import {
  baseName,
  blocksText,
  excerpt,
  isRecord,
  json,
  notTheFormat,
  oneSession,
  parseEntries,
  type SourceFile,
  stringField,
} from "./common";
import { inlineImages } from "./images";

const lineSchema = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string().optional(),
  payload: z.unknown().optional(),
  record_type: z.string().optional(),
  id: z.string().optional(),
});

/** User messages Codex injects (instructions, environment), not typed by the person. */
const injectedPrefixes = [
  "<environment_context>",
  "<user_instructions>",
  "# AGENTS.md instructions",
  "<user_shell_command>",
];

/** The line types of a rollout (`RolloutItem`). */
const envelopeTypes = new Set([
  "session_meta",
  "response_item",
  "event_msg",
  "turn_context",
  "compacted",
]);

/** `event_msg` payloads that repeat a `response_item` or only drive the UI: not imported. */
const responseItemTypes = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "web_search_call",
  "ghost_snapshot",
]);

/**
 * Converts one rollout. `response_item`s are the conversation (what the model saw); `event_msg`s
 * are UI events that repeat them and are not imported, except `turn_aborted` (the turn is
 * cancelled). `compacted` becomes a compaction; `session_meta.forked_from_id` makes the session a
 * fork of that rollout's session when it has been imported.
 */
export function convertCodex(file: SourceFile): Conversion {
  return convertCodexKeeping(file).conversion;
}

/** A conversion, and the state to go on from after its lines (see {@link resumeCodex}). */
export interface CodexConversion {
  conversion: Conversion;
  /**
   * The state after the lines converted; `undefined` when the file does not say yet what it is
   * (no `session_meta` or old-shape meta line first: its id and time could still change).
   */
  state(): CodexState | undefined;
}

/** Converts one rollout, as {@link convertCodex}, keeping the state to continue from. */
export function convertCodexKeeping(file: SourceFile): CodexConversion {
  const skipped: SkippedLine[] = [];
  // Lines as parsed (no zod copy of each): an envelope is read field by field, except a bare
  // item of the old shape, which is copied below as before (its text keeps zod's key order).
  const lines = parseEntries(file, lineSchema, "Codex rollout", skipped, { asIs: true });
  let meta: Record<string, unknown> | undefined;
  const first = lines[0]?.value;
  // Rollouts from before ~September 2025: a bare meta line, then bare items.
  const oldShape = first !== undefined && first.type === undefined && first.id !== undefined;
  if (first?.type === "session_meta" && isRecord(first.payload)) meta = first.payload;
  else if (oldShape) meta = first;
  const recognised =
    meta !== undefined ||
    lines.some(
      (line) =>
        line.value.type !== undefined &&
        envelopeTypes.has(line.value.type) &&
        isRecord(line.value.payload),
    );
  if (lines.length > 0 && !recognised) {
    return { conversion: notTheFormat(file.path, "Codex rollout"), state: () => undefined };
  }
  const sessionId =
    (meta === undefined ? undefined : stringField(meta, "id")) ??
    baseName(file.path).replace(/^rollout-[0-9T:-]+-(?=[0-9a-f]{8}-)/, "");
  const key: SourceKey = { tool: "codex", sessionId };
  const createdAt =
    isoTime(meta?.timestamp) ?? isoTime(first?.timestamp) ?? new Date(0).toISOString();
  const builder = new DraftBuilder(key, createdAt, "openai:unknown");
  const cwd = (meta === undefined ? undefined : stringField(meta, "cwd")) ?? "/";
  if (meta !== undefined) {
    const instructions = stringField(meta, "instructions");
    if (instructions !== undefined) builder.extension("instructions", instructions);
  }
  const forkedFrom = meta === undefined ? undefined : stringField(meta, "forked_from_id");
  const progress: CodexProgress = {
    builder,
    oldShape,
    cwd,
    createdAt,
    ...(forkedFrom === undefined ? {} : { forkedFrom }),
  };
  convertLines(progress, lines);
  return {
    conversion: oneSession(sessionOf(progress, file.path), skipped, lines.length),
    state: () => (meta === undefined ? undefined : stateOf(progress)),
  };
}

/**
 * Converts the lines that followed the ones `state` was taken after (`file` holds only those):
 * the session's events after the ones already converted, as a conversion of the whole file
 * would have them, and the state after these lines.
 */
export function resumeCodex(state: CodexState, file: SourceFile): CodexConversion {
  const skipped: SkippedLine[] = [];
  const lines = parseEntries(file, lineSchema, "Codex rollout", skipped, { asIs: true });
  const progress: CodexProgress = {
    builder: DraftBuilder.resume(state.draft),
    oldShape: state.oldShape,
    cwd: state.cwd,
    createdAt: state.createdAt,
    ...(state.forkedFrom === undefined ? {} : { forkedFrom: state.forkedFrom }),
  };
  convertLines(progress, lines);
  return {
    conversion: oneSession(sessionOf(progress, file.path), skipped, lines.length),
    state: () => stateOf(progress),
  };
}

/** Where a conversion stands: what converting a line reads and changes, and the header. */
interface CodexProgress {
  builder: DraftBuilder;
  oldShape: boolean;
  cwd: string;
  createdAt: string;
  forkedFrom?: string;
}

const codexStateSchema = z.object({
  draft: draftStateSchema,
  oldShape: z.boolean(),
  cwd: z.string(),
  createdAt: z.string(),
  forkedFrom: z.string().optional(),
});

/** A Codex conversion's state after some lines (plain JSON; read back with {@link parseCodexState}). */
export type CodexState = z.infer<typeof codexStateSchema>;

/** `value` as a {@link CodexState}, or `undefined` when it is not one of this version. */
export function parseCodexState(value: unknown): CodexState | undefined {
  const parsed = codexStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function stateOf(progress: CodexProgress): CodexState {
  return {
    draft: progress.builder.state(),
    oldShape: progress.oldShape,
    cwd: progress.cwd,
    createdAt: progress.createdAt,
    ...(progress.forkedFrom === undefined ? {} : { forkedFrom: progress.forkedFrom }),
  };
}

function convertLines(
  progress: CodexProgress,
  lines: readonly { value: z.infer<typeof lineSchema> }[],
): void {
  const { builder, oldShape } = progress;
  for (const { value } of lines) {
    builder.at(value.timestamp);
    const payload = isRecord(value.payload) ? value.payload : undefined;
    if (value.type === "response_item" && payload !== undefined) {
      convertItem(builder, payload);
    } else if (value.type === "turn_context" && payload !== undefined) {
      const model = stringField(payload, "model");
      if (model !== undefined) builder.setModel(`openai:${model}`);
      if (progress.cwd === "/" && stringField(payload, "cwd") !== undefined)
        progress.cwd = stringField(payload, "cwd")!;
    } else if (value.type === "event_msg" && payload !== undefined) {
      if (payload.type === "turn_aborted") builder.markTurn("cancelled");
    } else if (value.type === "compacted" && payload !== undefined) {
      builder.compaction(stringField(payload, "message") ?? "");
    } else if (oldShape && value.type !== undefined && responseItemTypes.has(value.type)) {
      // The pre-September-2025 shape: bare response items, no envelope.
      convertItem(builder, lineSchema.parse(value));
    }
    // session_meta (read above), `record_type: state` lines and unknown envelopes: not conversation.
  }
}

function sessionOf(progress: CodexProgress, path: string): ConvertedSession {
  const { builder, forkedFrom } = progress;
  return {
    key: builder.key,
    path,
    cwd: progress.cwd,
    createdAt: progress.createdAt,
    events: builder.finish(),
    ...(builder.blobs.size === 0 ? {} : { blobs: builder.blobs }),
    ...(forkedFrom === undefined
      ? {}
      : { forkOf: { tool: "codex", sessionId: forkedFrom }, forkMatch: "content" }),
  };
}

function convertItem(builder: DraftBuilder, item: Record<string, unknown>): void {
  const type = stringField(item, "type");
  switch (type) {
    case "message": {
      const text = blocksText(item.content);
      const role = stringField(item, "role");
      if (role === "assistant") {
        if (text.trim() !== "") builder.assistantText(text);
      } else if (role === "user") {
        if (injectedPrefixes.some((prefix) => text.trimStart().startsWith(prefix)))
          builder.extension("context", text);
        else if (text.trim() !== "")
          builder.userPrompt(text, builder.attach(inlineImages(item.content)));
      } else {
        builder.extension("instructions", text, { role });
      }
      return;
    }
    case "reasoning": {
      const summary = Array.isArray(item.summary) ? blocksText(item.summary) : "";
      const content = Array.isArray(item.content) ? blocksText(item.content) : "";
      builder.extension("reasoning", [summary, content].filter((part) => part !== "").join("\n"));
      return;
    }
    case "function_call":
      builder.call(
        stringField(item, "call_id") ?? stringField(item, "id") ?? "",
        stringField(item, "name") ?? "",
        stringField(item, "arguments") ?? json(item.arguments ?? {}),
      );
      return;
    case "custom_tool_call":
      builder.call(
        stringField(item, "call_id") ?? "",
        stringField(item, "name") ?? "",
        json({ input: item.input ?? "" }),
        { format: "custom" },
      );
      return;
    case "local_shell_call":
      builder.call(
        stringField(item, "call_id") ?? stringField(item, "id") ?? "",
        "local_shell",
        json(item.action ?? {}),
      );
      return;
    case "function_call_output":
    case "custom_tool_call_output": {
      const { text, isError } = outputOf(item.output);
      const content = isRecord(item.output) ? item.output.content : item.output;
      builder.output(
        stringField(item, "call_id") ?? "",
        text,
        isError,
        builder.attach(inlineImages(content)),
      );
      return;
    }
    case "web_search_call": {
      const action = isRecord(item.action) ? item.action : {};
      builder.extension("web-search", stringField(action, "query") ?? "", { action });
      return;
    }
    default:
      builder.extension(
        type === "ghost_snapshot" ? "ghost-snapshot" : "item",
        excerpt(json(item), 4000),
        { itemType: type },
      );
  }
}

/** A call output: a string, or (older versions) `{content, success}`. */
function outputOf(output: unknown): { text: string; isError: boolean } {
  if (typeof output === "string") return { text: output, isError: false };
  if (isRecord(output)) {
    return { text: blocksText(output.content ?? json(output)), isError: output.success === false };
  }
  if (Array.isArray(output)) return { text: blocksText(output), isError: false };
  return { text: json(output), isError: false };
}
