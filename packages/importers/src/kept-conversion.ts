/**
 * Conversions that keep their converter's state, for continuous import to convert only what a
 * source file grew by (`grown-import.ts`): Codex rollouts (plain `.jsonl`) and Claude Code
 * transcripts without sub-agent files. Each conversion says exactly which bytes it read (size,
 * inode, line count, hash of the last 4 KB), so that the next one can check the file still starts
 * with them.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { DraftState } from "./draft-state";
import { splitLines } from "./lines";
import {
  type ClaudeCodeState,
  convertClaudeCodeKeeping,
  parseClaudeCodeState,
  resumeClaudeCode,
} from "./sources/claude-code-resume";
import {
  type CodexState,
  convertCodexKeeping,
  parseCodexState,
  resumeCodex,
} from "./sources/codex";
import type { SourceFile } from "./sources/common";
import type { Conversion, ImportSource, SkippedLine } from "./types";

/** How many bytes before the converted end the kept hash covers. */
export const HASHED_BYTES = 4096;

/** Which bytes of a source file a conversion read. */
export interface ReadMark {
  /** The file's inode when read. */
  ino: number;
  /** Bytes read (the file's size then). */
  offset: number;
  /** Lines ("\n") in them: the next line's number is `lines + 1`. */
  lines: number;
  /** sha256 of the {@link HASHED_BYTES} before `offset`. */
  hash: string;
  /** True when they end with "\n" (no line half written): only then is the state kept. */
  whole: boolean;
}

/** A conversion with its converter's state and the bytes it read. */
export interface KeptConversion {
  conversion: Conversion;
  /** Lines skipped while splitting (too long), apart: the report lists them first. */
  splitSkipped: SkippedLine[];
  /** The converter's state after the last line (plain JSON), or `undefined`: not resumable. */
  state: unknown;
  read: ReadMark;
}

/** The sources whose conversions keep a state. */
export function keepsState(source: ImportSource, path: string): boolean {
  return (source === "codex" && path.endsWith(".jsonl")) || source === "claude-code";
}

/** sha256 (hex) of `bytes`. */
export function hashOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The file's bytes from `from` to its end, with its inode and size, from one descriptor. */
export function readFrom(path: string, from: number): { bytes: Buffer; ino: number; size: number } {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    const bytes = Buffer.allocUnsafe(Math.max(0, size - from));
    let read = 0;
    while (read < bytes.length) {
      const got = readSync(fd, bytes, read, bytes.length - read, from + read);
      if (got === 0) break;
      read += got;
    }
    return { bytes: bytes.subarray(0, read), ino: stat.ino, size: from + read };
  } finally {
    closeSync(fd);
  }
}

/** Counts "\n" in `bytes`. */
export function countLines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count += 1;
  return count;
}

/**
 * Converts a whole source file as `findUnits`' unit does (the same events, skipped lines and
 * entries), keeping the converter's state. Claude Code sub-agent files are the caller's to rule
 * out (a transcript with them keeps no state).
 */
export function convertKeeping(
  source: "codex" | "claude-code",
  path: string,
  maxLineBytes: number | undefined,
): KeptConversion {
  const { bytes, ino, size } = readFrom(path, 0);
  const split = splitLines(bytes, {
    path,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  const file: SourceFile = { path, lines: split.lines };
  const kept = source === "codex" ? convertCodexKeeping(file) : convertClaudeCodeKeeping(file);
  const conversion: Conversion = {
    ...kept.conversion,
    skipped: [...split.skipped, ...kept.conversion.skipped],
  };
  return {
    conversion,
    splitSkipped: split.skipped,
    state: kept.state(),
    read: {
      ino,
      offset: size,
      lines: countLines(bytes),
      hash: hashOf(bytes.subarray(Math.max(0, size - HASHED_BYTES))),
      whole: size > 0 && bytes[size - 1] === 10,
    },
  };
}

/**
 * Converts the lines a source grew by (`file`: only those, numbered in the whole file) from a kept
 * state; `undefined` when the state is not one of this version or the lines do not continue it
 * (the caller converts the whole file).
 */
export function resumeKept(
  source: "codex" | "claude-code",
  state: unknown,
  file: SourceFile,
  /** The state is one a converter of this process made (not read back): not checked again. */
  trusted = false,
): { conversion: Conversion; state: unknown } | undefined {
  if (source === "codex") {
    const parsed = trusted ? (state as CodexState) : parseCodexState(state);
    if (parsed === undefined) return undefined;
    const resumed = resumeCodex(parsed, file);
    return { conversion: resumed.conversion, state: resumed.state() };
  }
  const parsed = trusted ? (state as ClaudeCodeState) : parseClaudeCodeState(state);
  if (parsed === undefined) return undefined;
  const resumed = resumeClaudeCode(parsed, file);
  return resumed === undefined
    ? undefined
    : { conversion: resumed.conversion, state: resumed.state() };
}

/** The builder's part of a kept state (both converters keep it as `draft`). */
export function draftOf(state: unknown): DraftState | undefined {
  const draft = (state as { draft?: DraftState } | undefined)?.draft;
  return draft !== undefined && typeof draft.nextSeq === "number" ? draft : undefined;
}
