/**
 * `tapedeck sessions list` builds only the zod schemas it uses (issue #12: building every
 * package's schemas at import cost 20–40 ms of each start). Every zod schema defines its `_zod`
 * property once, when built; counting those calls while the `sessions` command's modules are
 * imported shows which modules built schemas at import.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
// zod itself is loaded first: only the schemas the imported modules build are counted.
import "zod";

const repo = path.resolve(import.meta.dirname, "../../..");

/** Modules `sessions list` never validates with: their schemas must be built on first use. */
const LAZY = [
  // The session log's event schemas: each is built with the first event of its type.
  "packages/session/src/schema.ts",
  "packages/agent/src/tools/",
  "packages/llm/src/wire-chat.ts",
  "packages/llm/src/wire-responses.ts",
  "packages/host/src/mcp/server-config.ts",
  "packages/session-query/src/query-actions.ts",
  "packages/session-query/src/tool.ts",
  // Search queries, cursors: built by the first query (list validates its options and scope).
  "packages/session-query/src/query-schema.ts",
  "packages/session-query/src/normalize-query.ts",
];

/** Imports `load()` and returns, per source file, how many zod schemas it built meanwhile. */
async function schemasBuiltBy(load: () => Promise<unknown>): Promise<Map<string, number>> {
  const built = new Map<string, number>();
  const define = Object.defineProperty;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  Object.defineProperty = (<T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor) => {
    if (key === "_zod") {
      const files = (new Error().stack ?? "")
        .split("\n")
        .map((line) => /\((?:file:\/\/)?(\/[^:)]+):\d+:\d+\)$|at (\/[^:]+):\d+:\d+$/.exec(line))
        .map((match) => match?.[1] ?? match?.[2])
        .filter((file): file is string => file !== undefined && !file.includes("node_modules"));
      const owner = files.find((file) => file.startsWith(repo) && !file.endsWith(".test.ts"));
      if (owner !== undefined) {
        const relative = path.relative(repo, owner);
        built.set(relative, (built.get(relative) ?? 0) + 1);
      }
    }
    return define(target, key, descriptor);
  }) as typeof Object.defineProperty;
  try {
    await load();
  } finally {
    Object.defineProperty = define;
    Error.stackTraceLimit = limit;
  }
  return built;
}

describe("sessions list's start-up", () => {
  it("builds no schema of the log's events, the agent's tools, the model wire, MCP configs or query actions", async () => {
    const built = await schemasBuiltBy(async () => {
      await import("../src/cli/sessions-command");
      await import("../src/cli/sessions/list");
      await import("../src/cli/sessions/search");
    });
    const eager = [...built].filter(([file]) => LAZY.some((lazy) => file.startsWith(lazy)));
    expect(eager).toEqual([]);
  });

  it("builds an event type's schema with the first event of that type, and only that one", async () => {
    const { parseEventLine } = await import("@tapedeck/session");
    const line = (type: string, fields: object) =>
      JSON.stringify({ seq: 3, ts: "2026-01-01T00:00:00.000Z", runId: "r", type, ...fields });
    const first = await schemasBuiltBy(async () => {
      parseEventLine(line("goal/set", { goal: "ship it" }));
    });
    // The count works: the schema (and the fields it shares with every event) is built now…
    expect(first.get("packages/session/src/schema.ts") ?? 0).toBeGreaterThan(3);
    const again = await schemasBuiltBy(async () => {
      parseEventLine(line("goal/set", { goal: null }));
    });
    // …once.
    expect(again.get("packages/session/src/schema.ts") ?? 0).toBe(0);
  });
});
