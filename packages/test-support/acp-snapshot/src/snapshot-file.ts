import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** The outcome of comparing captured lines with a snapshot file. */
export type SnapshotComparison =
  | { status: "match" }
  | { status: "written"; path: string }
  | { status: "mismatch"; path: string; diff: string };

/** Serialises values as snapshot lines: one compact JSON value per line. */
export function toSnapshotLines(values: readonly unknown[]): string[] {
  return values.map((value) => JSON.stringify(value));
}

/**
 * Compares `lines` with the snapshot at `path`. A missing file is written (first run); with
 * `update`, a differing file is rewritten. Otherwise a mismatch carries a readable diff.
 */
export function compareSnapshotFile(
  path: string,
  lines: readonly string[],
  options: { update: boolean },
): SnapshotComparison {
  const text = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  if (!existsSync(path)) {
    if (process.env.CI && !options.update) {
      return {
        status: "mismatch",
        path,
        diff: `snapshot ${path} does not exist (CI never writes snapshots; run the test locally with -u)`,
      };
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return { status: "written", path };
  }
  const expected = readFileSync(path, "utf8");
  if (expected === text) return { status: "match" };
  if (options.update) {
    writeFileSync(path, text);
    return { status: "written", path };
  }
  return {
    status: "mismatch",
    path,
    diff: diffLines(
      expected.split("\n").filter((line) => line.length > 0),
      [...lines],
    ),
  };
}

/**
 * A diff that a person can read: the first differing line with two lines of context, the fields
 * that differ inside it, and how many lines follow.
 */
export function diffLines(expected: readonly string[], actual: readonly string[]): string {
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index])
    index += 1;
  const out: string[] = [];
  out.push(
    `first difference at line ${index + 1} (expected ${expected.length} lines, got ${actual.length})`,
  );
  for (let context = Math.max(0, index - 2); context < index; context += 1)
    out.push(`  ${context + 1}  ${clip(expected[context]!)}`);
  const want = expected[index];
  const got = actual[index];
  out.push(`- ${index + 1}  ${want === undefined ? "(no line)" : clip(want)}`);
  out.push(`+ ${index + 1}  ${got === undefined ? "(no line)" : clip(got)}`);
  if (want !== undefined && got !== undefined) {
    const fields = diffValues(safeParse(want), safeParse(got), "");
    if (fields.length > 0) {
      out.push("fields:");
      for (const field of fields.slice(0, 8)) out.push(`  ${field}`);
      if (fields.length > 8) out.push(`  … ${fields.length - 8} more`);
    }
  }
  const remaining = Math.max(expected.length, actual.length) - index - 1;
  if (remaining > 0)
    out.push(
      `(${remaining} more line${remaining === 1 ? "" : "s"} after this one; later lines may differ too)`,
    );
  return out.join("\n");
}

function diffValues(want: unknown, got: unknown, path: string): string[] {
  if (JSON.stringify(want) === JSON.stringify(got)) return [];
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null;
  if (isObject(want) && isObject(got) && Array.isArray(want) === Array.isArray(got)) {
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])];
    return keys.flatMap((key) =>
      diffValues(want[key], got[key], path === "" ? key : `${path}.${key}`),
    );
  }
  return [
    `${path || "(value)"}: expected ${clip(JSON.stringify(want) ?? "undefined", 80)}, got ${clip(JSON.stringify(got) ?? "undefined", 80)}`,
  ];
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
}

function clip(text: string, max = 240): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
