import {
  canonicalJson,
  type LlmRequest,
  type NormalizedItem,
  normalizeRequestInput,
  requestDigest,
  toolsDigest,
} from "@tapedeck/llm";
import type { RecordedCall } from "./recording";

/**
 * One difference between the recorded and the actual request. `recorded` is absent for what only
 * the actual request has, `actual` for what only the recording has.
 */
export interface DiffEntry {
  /** Where: `model`, `tools`, `input[3].content`, `latestInput[0]`, `instructions`. */
  path: string;
  recorded?: unknown;
  actual?: unknown;
  note?: string;
}

/** A request as the diff shows it (the log keeps digests of instructions and tools, not the text). */
export interface RequestView {
  model: string;
  inputDigest: string;
  toolsDigest: string;
  /** Undefined when the log does not name the tools. */
  toolNames: string[] | undefined;
  /** Input items without the instructions. */
  input: NormalizedItem[];
  /** Only known for the actual request. */
  instructions?: string;
}

/** How a request must match its recorded call. */
export type MatchMode = "strict" | "loose" | "off";

/** The recorded side of a call, as a view. */
export function recordedView(call: RecordedCall): RequestView {
  return {
    model: call.model,
    inputDigest: call.inputDigest,
    toolsDigest: call.toolsDigest,
    toolNames: call.toolNames,
    input: normalizeRequestInput({ input: call.input }),
  };
}

/** The actual side, as a view. */
export function actualView(request: LlmRequest): RequestView {
  const view: RequestView = {
    model: request.model,
    inputDigest: requestDigest(request),
    toolsDigest: toolsDigest(request.tools),
    toolNames: request.tools.map((tool) => tool.name),
    input: normalizeRequestInput({ input: request.input }),
  };
  if (request.instructions !== undefined) view.instructions = request.instructions;
  return view;
}

/**
 * What keeps `actual` from matching `recorded` under `mode` (empty: it matches).
 *
 * - `strict`: model, input digest (instructions + input items) and tools digest are equal.
 * - `loose`: model, tool names (when the log has them) and the latest input (the user messages
 *   and tool outputs after the model's last output) are equal.
 * - `off`: always matches.
 */
export function compareRequest(
  recorded: RequestView,
  actual: RequestView,
  mode: MatchMode,
): DiffEntry[] {
  if (mode === "off") return [];
  const diff: DiffEntry[] = [];
  if (recorded.model !== actual.model)
    diff.push({ path: "model", recorded: recorded.model, actual: actual.model });
  if (mode === "strict") {
    if (recorded.toolsDigest !== actual.toolsDigest) {
      const names = recorded.toolNames;
      if (names !== undefined && canonicalJson(names) !== canonicalJson(actual.toolNames)) {
        diff.push({ path: "tools", recorded: names, actual: actual.toolNames });
      } else {
        diff.push({
          path: "toolsDigest",
          recorded: recorded.toolsDigest,
          actual: actual.toolsDigest,
          note:
            names === undefined
              ? "the log keeps only a digest of the tool definitions"
              : "same tool names, so a description or parameter schema changed",
        });
      }
    }
    if (recorded.inputDigest !== actual.inputDigest) {
      const items = diffItems("input", recorded.input, actual.input);
      if (items.length > 0) diff.push(...items);
      else {
        diff.push({
          path: "instructions",
          recorded: `(digest only) ${recorded.inputDigest}`,
          actual: actual.instructions ?? null,
          note: "the input items are equal, so the instructions differ",
        });
      }
    }
    return diff;
  }
  if (
    recorded.toolNames !== undefined &&
    canonicalJson(recorded.toolNames) !== canonicalJson(actual.toolNames)
  ) {
    diff.push({ path: "tools", recorded: recorded.toolNames, actual: actual.toolNames });
  }
  diff.push(...diffItems("latestInput", latestInput(recorded.input), latestInput(actual.input)));
  return diff;
}

/** The trailing user messages and tool outputs: what the model is answering now. */
export function latestInput(items: readonly NormalizedItem[]): NormalizedItem[] {
  let start = items.length;
  while (start > 0) {
    const item = items[start - 1]!;
    const isInput =
      item.type === "function_call_output" || (item.type === "message" && item.role === "user");
    if (!isInput) break;
    start -= 1;
  }
  return items.slice(start);
}

const maxEntries = 12;

/**
 * Item-level diff: the common prefix and suffix are skipped, the middle is compared position by
 * position (field by field for items of the same type), so one inserted item reads as one entry.
 */
export function diffItems(
  path: string,
  recorded: readonly NormalizedItem[],
  actual: readonly NormalizedItem[],
): DiffEntry[] {
  const same = (a: NormalizedItem, b: NormalizedItem) => canonicalJson(a) === canonicalJson(b);
  let prefix = 0;
  while (
    prefix < recorded.length &&
    prefix < actual.length &&
    same(recorded[prefix]!, actual[prefix]!)
  ) {
    prefix += 1;
  }
  let suffix = 0;
  while (
    suffix < recorded.length - prefix &&
    suffix < actual.length - prefix &&
    same(recorded[recorded.length - 1 - suffix]!, actual[actual.length - 1 - suffix]!)
  ) {
    suffix += 1;
  }
  const recordedMiddle = recorded.slice(prefix, recorded.length - suffix);
  const actualMiddle = actual.slice(prefix, actual.length - suffix);
  const entries: DiffEntry[] = [];
  const length = Math.max(recordedMiddle.length, actualMiddle.length);
  for (let offset = 0; offset < length; offset += 1) {
    const left = recordedMiddle[offset];
    const right = actualMiddle[offset];
    const at = `${path}[${prefix + offset}]`;
    if (left === undefined) entries.push({ path: at, actual: right });
    else if (right === undefined) entries.push({ path: at, recorded: left });
    else if (left.type !== right.type) entries.push({ path: at, recorded: left, actual: right });
    else {
      const fields = new Set([...Object.keys(left), ...Object.keys(right)]);
      for (const field of fields) {
        const a = (left as Record<string, unknown>)[field];
        const b = (right as Record<string, unknown>)[field];
        if (a !== b) entries.push({ path: `${at}.${field}`, recorded: a, actual: b });
      }
    }
  }
  if (entries.length > maxEntries) {
    const rest = entries.length - maxEntries;
    return [
      ...entries.slice(0, maxEntries),
      { path: `${path}[…]`, note: `${rest} more differences` },
    ];
  }
  return entries;
}
