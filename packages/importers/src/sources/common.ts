/** Helpers shared by the source converters. */
import { compileFastCheck, type FastCheck } from "@tapedeck/session";
import type { z } from "zod";
import type { DraftBuilder } from "../draft-builder";
import { parseJsonLine, type SourceLine } from "../lines";
import type { Conversion, ConvertedSession, SkippedLine } from "../types";

/** A file's lines, as the converters take them. */
export interface SourceFile {
  path: string;
  lines: readonly SourceLine[];
}

/** One parsed line with where it sits. */
export interface SourceEntry<T> {
  value: T;
  line: number;
  offset: number;
}

/**
 * Lines that may fail before the first entry parses: past them the file is refused whole as not
 * the format (one skip record), instead of listing (and parsing) every line of, say, a 100 MB
 * log named `.jsonl` (2.5 million records: 23 s and 950 MB, measured).
 */
export const MAX_LEADING_FAILURES = 1000;

/** Options of {@link parseEntries}. */
export interface ParseEntriesOptions {
  /**
   * Take a line's value itself when the schema's compiled check (`compileFastCheck`) accepts it
   * as it is, instead of zod's copy (a new object per line). The entry's keys are then in the
   * source's order, not the schema's: only for a converter that never serialises a whole entry.
   */
  asIs?: boolean;
}

/** Compiled checks of the schemas passed with `asIs` (`null`: the schema has none). */
const fastChecks = new WeakMap<z.ZodType, FastCheck | null>();

function fastCheckOf(schema: z.ZodType): FastCheck | undefined {
  let check = fastChecks.get(schema);
  if (check === undefined) {
    check = compileFastCheck(schema) ?? null;
    fastChecks.set(schema, check);
  }
  return check ?? undefined;
}

/**
 * Parses each line as JSON, then with `schema` (lenient: loose objects). Lines that fail either
 * are recorded in `skipped` with `reason` naming the format; when the first
 * {@link MAX_LEADING_FAILURES} lines all fail, the file is one record and no entry.
 */
export function parseEntries<T>(
  file: SourceFile,
  schema: z.ZodType<T>,
  format: string,
  skipped: SkippedLine[],
  options: ParseEntriesOptions = {},
): SourceEntry<T>[] {
  const entries: SourceEntry<T>[] = [];
  const before = skipped.length;
  const fast = options.asIs === true ? fastCheckOf(schema) : undefined;
  for (const source of file.lines) {
    const parsed = parseJsonLine(source, file.path);
    if (parsed.ok && fast?.(parsed.value)) {
      entries.push({ value: parsed.value as T, line: source.line, offset: source.offset });
      continue;
    }
    if (parsed.ok) {
      const checked = schema.safeParse(parsed.value);
      if (checked.success) {
        entries.push({ value: checked.data, line: source.line, offset: source.offset });
        continue;
      }
    }
    skipped.push(
      parsed.ok
        ? {
            path: file.path,
            line: source.line,
            offset: source.offset,
            reason: `not a ${format} entry`,
          }
        : parsed.skipped,
    );
    if (entries.length === 0 && skipped.length - before >= MAX_LEADING_FAILURES) {
      skipped.length = before;
      skipped.push({
        path: file.path,
        line: 0,
        offset: 0,
        reason: `not a ${format} file: none of its first ${MAX_LEADING_FAILURES} lines is an entry`,
      });
      return [];
    }
  }
  return entries;
}

/** Text of content that is a string or a list of blocks (`text`, `image`, …). */
export function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? "" : json(content);
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") parts.push(block);
    else if (isRecord(block)) {
      if (typeof block.text === "string") parts.push(block.text);
      else if (block.type === "image" || block.type === "input_image") parts.push("[image]");
      else if (typeof block.content === "string" || Array.isArray(block.content)) {
        parts.push(blocksText(block.content));
      }
    }
  }
  return parts.join("\n");
}

/** `JSON.stringify` that never throws and never returns undefined. */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string field, or undefined. */
export function stringField(record: Record<string, unknown>, name: string): string | undefined {
  const value = record[name];
  return typeof value === "string" ? value : undefined;
}

/** The file's name without directories and extensions (`/a/b/x.jsonl.zst` → `x`). */
export function baseName(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  return name.replace(/\.jsonl(\.zst)?$|\.json$/, "");
}

/**
 * A short excerpt for link events and titles: whitespace runs as one space, cut at `length`.
 * Only as much of the text as the excerpt needs is read (a growing prefix), so a huge entry
 * (a 50 MB blob in an unknown entry) is not run through a regex whole.
 */
export function excerpt(text: string, length = 200): string {
  for (let take = Math.max(1024, length * 4); ; take *= 4) {
    if (take >= text.length) {
      const flat = text.replace(/\s+/g, " ").trim();
      return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
    }
    // The flattened prefix is the flattened text's start, but for its last character (a space
    // that the rest of a whitespace run would also give): enough when it is longer than needed.
    const flat = text.slice(0, take).replace(/\s+/g, " ").trimStart();
    if (flat.length > length + 1) return `${flat.slice(0, length - 1)}…`;
  }
}

/**
 * The result for a file that is not the claimed format: nothing imported, one skip record naming
 * the file (its lines are not listed one by one).
 */
export function notTheFormat(path: string, format: string): Conversion {
  return refusedFile(path, `not a ${format} file`);
}

/** The result for a file refused whole: nothing imported, one skip record saying why. */
export function refusedFile(path: string, reason: string): Conversion {
  return { sessions: [], skipped: [{ path, line: 0, offset: 0, reason }], entries: 0 };
}

/**
 * A whole-document source (one JSON document per session) read with its schema; when it does not
 * match, the conversion that refuses the file with `refusal` (what the format needs).
 */
export function parseDocument<T>(
  schema: z.ZodType<T>,
  document: unknown,
  path: string,
  refusal: string,
): { data: T } | { refused: Conversion } {
  const parsed = schema.safeParse(document);
  return parsed.success ? { data: parsed.data } : { refused: refusedFile(path, refusal) };
}

/** The conversion of a file that holds one session: no session when it converted to no events. */
export function oneSession(
  session: ConvertedSession,
  skipped: SkippedLine[],
  entries: number,
): Conversion {
  return { sessions: session.events.length === 0 ? [] : [session], skipped, entries };
}

/** How a source names its tool-call content block, and reads the call's arguments as JSON text. */
export interface ToolCallBlock {
  type: string;
  args(block: Record<string, unknown>): string;
}

/**
 * One content block of an assistant message in the Anthropic shape Claude Code and pi both write:
 * `text` becomes assistant text (blank text is dropped), `thinking` an `x-<tool>-thinking` event,
 * the source's tool-call block a `function_call` (`id`, `name`). False for any other block.
 */
export function assistantBlock(
  builder: DraftBuilder,
  block: Record<string, unknown>,
  source: Record<string, unknown>,
  toolCall: ToolCallBlock,
): boolean {
  if (block.type === "text" && typeof block.text === "string") {
    if (block.text.trim() !== "") builder.assistantText(block.text, source);
  } else if (block.type === "thinking") {
    builder.extension("thinking", stringField(block, "thinking") ?? "", source);
  } else if (block.type === toolCall.type) {
    builder.call(
      stringField(block, "id") ?? "",
      stringField(block, "name") ?? "",
      toolCall.args(block),
      source,
    );
  } else {
    return false;
  }
  return true;
}
