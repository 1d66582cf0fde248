/**
 * Line diffs for `edit_file` and `write_file` calls, read from the call's JSON arguments (model
 * output: validated with zod, anything else falls back to the plain arguments view).
 */
import * as z from "zod/mini";

/** One line of a diff. */
export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** A file change proposed by a tool call. */
export interface FileChange {
  path: string;
  lines: DiffLine[];
  /** `write_file` shows the whole new content. */
  whole: boolean;
}

const editArgumentsSchema = z.object({
  path: z.string(),
  oldText: z.string(),
  newText: z.string(),
});
const writeArgumentsSchema = z.object({ path: z.string(), content: z.string() });

/** Above this many line pairs the diff is "all removed, then all added" (no LCS table). */
const LCS_LIMIT = 4_000_000;

/** A line diff (longest common subsequence). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > LCS_LIMIT) {
    return [
      ...a.map((text) => ({ kind: "removed" as const, text })),
      ...b.map((text) => ({ kind: "added" as const, text })),
    ];
  }
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * width + j] ?? 0, table[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i] ?? "" });
      i += 1;
      j += 1;
    } else if (
      i < a.length &&
      (j >= b.length || (table[(i + 1) * width + j] ?? 0) >= (table[i * width + j + 1] ?? 0))
    ) {
      // Removed lines before added ones, as unified diffs show them.
      lines.push({ kind: "removed", text: a[i] ?? "" });
      i += 1;
    } else {
      lines.push({ kind: "added", text: b[j] ?? "" });
      j += 1;
    }
  }
  return lines;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The change an `edit_file`/`write_file` call asks for; null for other tools or bad arguments. */
export function fileChangeOf(name: string, argumentsText: string): FileChange | null {
  if (name !== "edit_file" && name !== "write_file") return null;
  const value = parseJson(argumentsText);
  if (name === "edit_file") {
    const parsed = editArgumentsSchema.safeParse(value);
    if (!parsed.success) return null;
    return {
      path: parsed.data.path,
      lines: diffLines(parsed.data.oldText, parsed.data.newText),
      whole: false,
    };
  }
  const parsed = writeArgumentsSchema.safeParse(value);
  if (!parsed.success) return null;
  return {
    path: parsed.data.path,
    lines: parsed.data.content
      .replace(/\n$/, "")
      .split("\n")
      .map((text) => ({ kind: "added", text })),
    whole: true,
  };
}
