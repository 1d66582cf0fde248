import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { createNormalizer } from "./normalize";
import type { ScenarioResult } from "./run-scenario";
import { compareSnapshotFile, toSnapshotLines } from "./snapshot-file";

/** The normalised, snapshot-ready form of a scenario result. */
export interface ScenarioSnapshot {
  /** `<scenario>.wire.jsonl`: one line per message or CLI call. */
  wire: unknown[];
  /** `<scenario>.session-<n>.jsonl`: one per session log, numbered as on the wire. */
  logs: Array<{ name: string; lines: unknown[] }>;
}

/** Normalises a result: ids, timestamps, paths and the agent version become placeholders. */
export function toScenarioSnapshot(result: ScenarioResult): ScenarioSnapshot {
  const version = agentVersion(result);
  const normalizer = createNormalizer({
    paths: {
      ...result.placeholders,
      "<CWD>": result.cwd,
      "<HOME>": result.home,
      "<ROOT>": path.dirname(result.home),
    },
    literals: {
      "<HOST>": os.hostname(),
      ...(version === undefined ? {} : { "<VERSION>": version }),
    },
  });
  // Every session that has a log is named `<SESSION n>`, numbered in the order its id first
  // appears on the wire, even where it first appears as another kind of id (a fork's first run
  // id is its session id; a fork made by the CLI is first printed): two logs must never share
  // a number, or they would share a snapshot file.
  for (const id of idsInOrder(result)) {
    if (result.logs.has(id)) normalizer.claim(id, "SESSION");
  }
  const wire = result.wire.map((entry) =>
    entry.from === "cli"
      ? normalizer.normalize({
          from: "cli",
          args: entry.args,
          exitCode: entry.exitCode,
          stdout: entry.stdout,
        })
      : normalizer.normalize({
          from: entry.from,
          ...(entry.client === 1 ? {} : { client: entry.client }),
          ...entry.message,
        }),
  );
  const logs = [...result.logs.entries()]
    .map(([sessionId, text]) => {
      const lines = text
        .split("\n")
        .filter((line) => line.length > 0)
        .map((line) => {
          try {
            return JSON.parse(line) as unknown;
          } catch {
            return { unparsable: line };
          }
        });
      // The id may first appear in the log (a fork made by the CLI): normalise the header first.
      const normalized = lines.map((line) => normalizer.normalize(line));
      const placeholder = normalizer.placeholderOf(sessionId) ?? "<SESSION ?>";
      return { placeholder, normalized };
    })
    .sort((a, b) => placeholderNumber(a.placeholder) - placeholderNumber(b.placeholder))
    .map(({ placeholder, normalized }) => ({
      name: `session-${placeholderNumber(placeholder)}`,
      lines: normalized,
    }));
  return { wire, logs };
}

/** The UUIDs of the wire in order of first appearance, then the logs' own ids. */
function idsInOrder(result: ScenarioResult): string[] {
  const pattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
  const text = result.wire.map((entry) => JSON.stringify(entry)).join("\n");
  const ids = [...text.matchAll(pattern)].map((match) => match[0].toLowerCase());
  return [...new Set([...ids, ...[...result.logs.keys()].map((id) => id.toLowerCase())])];
}

/**
 * Fails (throws) when the run broke the protocol rules, or when its normalised wire or logs differ
 * from the snapshots in `dir` (`<scenario>.wire.jsonl`, `<scenario>.session-<n>.jsonl`). Run
 * vitest with `-u` (or `UPDATE_SNAPSHOTS=1`) to rewrite them.
 */
export function expectScenarioSnapshot(
  result: ScenarioResult,
  dir: string,
  options: { update?: boolean } = {},
): void {
  if (result.violations.length > 0) {
    throw new Error(
      `scenario ${result.scenario} broke the protocol:\n- ${result.violations.join("\n- ")}`,
    );
  }
  const snapshot = toScenarioSnapshot(result);
  const update = options.update ?? shouldUpdate();
  const files: Array<[string, unknown[]]> = [
    [`${result.scenario}.wire.jsonl`, snapshot.wire],
    ...snapshot.logs.map((log): [string, unknown[]] => [
      `${result.scenario}.${log.name}.jsonl`,
      log.lines,
    ]),
  ];
  const problems: string[] = [];
  for (const [file, values] of files) {
    const comparison = compareSnapshotFile(path.join(dir, file), toSnapshotLines(values), {
      update,
    });
    if (comparison.status === "mismatch") problems.push(`${file}: ${comparison.diff}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `scenario ${result.scenario} differs from its snapshots (update with -u):\n\n${problems.join("\n\n")}`,
    );
  }
}

function shouldUpdate(): boolean {
  if (process.env.UPDATE_SNAPSHOTS === "1") return true;
  const state = expect.getState().snapshotState as unknown as
    | { _updateSnapshot?: string }
    | undefined;
  return state?._updateSnapshot === "all";
}

function agentVersion(result: ScenarioResult): string | undefined {
  for (const entry of result.wire) {
    if (entry.from !== "agent") continue;
    const info = (entry.message.result as { agentInfo?: { version?: unknown } } | undefined)
      ?.agentInfo;
    if (typeof info?.version === "string") return info.version;
  }
  return undefined;
}

function placeholderNumber(placeholder: string): number {
  const match = /(\d+)>$/.exec(placeholder);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}
