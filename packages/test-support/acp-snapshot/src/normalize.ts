/**
 * Normalisation of captured wire messages and logs: everything that changes from run to run
 * (ids, timestamps, durations, temp paths, versions) becomes a stable placeholder, numbered in
 * order of first appearance so the same id keeps the same name across the wire and the logs.
 */

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const isoPattern = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;

/**
 * Process ids in messages such as a busy session's owner ("process 4242 on host") or a repaired
 * call's orphan ("process group 4242").
 */
const pidPattern = /\b(process|pid|process group) \d+\b/g;

/** Which placeholder family an id belongs to, chosen by the key it first appears under. */
const keyKinds: Record<string, string> = {
  sessionId: "SESSION",
  runId: "RUN",
  callId: "CALL",
  toolCallId: "CALL",
  messageId: "MESSAGE",
  requestId: "REQUEST",
};

/** Keys whose numeric values vary between runs. */
const volatileNumberKeys = new Set([
  "durationMs",
  "elapsedMs",
  "pid",
  "pgid",
  "startTicks",
  "startedAtMs",
  "latencyMs",
]);

/** Keys whose string values name the machine or the call (`x-process/start`: host, boot, marker). */
const volatileStringKeys = new Map([
  ["host", "<HOST>"],
  ["bootId", "<BOOT>"],
  ["marker", "<MARKER>"],
]);

/**
 * A checkpoint id (a commit of the private store, which embeds a time in seconds, or a light
 * checkpoint's `lc-` id, which names its base commit): `<CHECKPOINT>`,
 * not numbered, since two checkpoints of the same tree made in the same second share an id and
 * in two seconds do not (numbering them made snapshots depend on the clock).
 */
const checkpointIdPattern = /^(?:[0-9a-f]{40}|lc-[0-9a-f]{32})$/;

/** Options of {@link createNormalizer}. */
export interface NormalizerOptions {
  /** Absolute paths to replace, longest first: e.g. `{ "<CWD>": cwd, "<HOME>": home }`. */
  paths?: Record<string, string>;
  /** Exact strings to replace (e.g. the agent's version) by a placeholder. */
  literals?: Record<string, string>;
}

/** A stateful normaliser: share one across the wire and the logs of a scenario. */
export interface Normalizer {
  /** A deep copy of `value` with placeholders in place of volatile values. */
  normalize<T>(value: T): T;
  /** The placeholder given to an id so far, if any. */
  placeholderOf(id: string): string | undefined;
  /**
   * Names `id` in the `kind` family now (`"SESSION"`), unless it has a name already: for ids
   * known to be sessions before they are met under a key that says so (a fork the CLI prints).
   */
  claim(id: string, kind: string): string;
}

/** Creates a normaliser with fresh numbering. */
export function createNormalizer(options: NormalizerOptions = {}): Normalizer {
  const names = new Map<string, string>();
  const counters = new Map<string, number>();
  const paths = Object.entries(options.paths ?? {})
    .filter(([, path]) => path.length > 1)
    .sort((a, b) => b[1].length - a[1].length);
  const literals = Object.entries(options.literals ?? {}).filter(([, text]) => text.length > 0);

  const nameFor = (id: string, kind: string): string => {
    const key = id.toLowerCase();
    const existing = names.get(key);
    if (existing !== undefined) return existing;
    const next = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, next);
    const name = `<${kind} ${next}>`;
    names.set(key, name);
    return name;
  };

  const normalizeString = (text: string, key: string | undefined): string => {
    const kind = key === undefined ? undefined : keyKinds[key];
    if (checkpointIdPattern.test(text)) return "<CHECKPOINT>";
    if (kind !== undefined && !uuidPattern.test(text)) {
      uuidPattern.lastIndex = 0;
      // Non-UUID ids under id keys (e.g. "call_abc123" from a model) still get numbered.
      return text.length > 0 ? nameFor(text, kind) : text;
    }
    uuidPattern.lastIndex = 0;
    let result = text;
    for (const [placeholder, path] of paths) result = result.split(path).join(placeholder);
    for (const [placeholder, literal] of literals) result = result.split(literal).join(placeholder);
    result = result.replace(uuidPattern, (id) => nameFor(id, kind ?? "UUID"));
    result = result.replace(isoPattern, "<TS>");
    result = result.replace(pidPattern, "$1 <PID>");
    return result;
  };

  const visit = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === "string")
      return key !== undefined && volatileStringKeys.has(key)
        ? (volatileStringKeys.get(key) ?? "<HOST>")
        : normalizeString(value, key);
    if (typeof value === "number")
      return key !== undefined && volatileNumberKeys.has(key) ? "<NUMBER>" : value;
    if (Array.isArray(value)) return value.map((item) => visit(item, key));
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [childKey, child] of Object.entries(value)) out[childKey] = visit(child, childKey);
      return out;
    }
    return value;
  };

  return {
    normalize: <T>(value: T) => visit(value, undefined) as T,
    placeholderOf: (id) => names.get(id.toLowerCase()),
    claim: nameFor,
  };
}
