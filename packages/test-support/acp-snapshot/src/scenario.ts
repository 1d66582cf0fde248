import { z } from "zod";

/** One scripted step of a scenario. */
export const scenarioStepSchema = z.discriminatedUnion("step", [
  /** `initialize` with the scenario's client capabilities. */
  z.object({ step: z.literal("initialize") }),
  /**
   * `session/new` in the scenario's workspace; the session is remembered under `as`. `mcpServers`
   * are ACP `McpServer`s; their strings may use the run's placeholders (`<NODE>`, …).
   */
  z.object({
    step: z.literal("newSession"),
    as: z.string().default("main"),
    mcpServers: z.array(z.record(z.string(), z.unknown())).default([]),
  }),
  /** `session/load` of a remembered session (`session`) or of a raw id (`sessionId`). */
  z.object({
    step: z.literal("loadSession"),
    session: z.string().default("main"),
    sessionId: z.string().optional(),
    mcpServers: z.array(z.record(z.string(), z.unknown())).default([]),
  }),
  /** `session/resume` of a remembered session. */
  z.object({ step: z.literal("resumeSession"), session: z.string().default("main") }),
  /** `session/list` for the scenario's workspace. */
  z.object({ step: z.literal("listSessions") }),
  /**
   * `session/prompt`. With `wait: false` the step returns at once and a later `waitFor("stop")`
   * collects the answer (so permissions, cancel and kill can happen meanwhile).
   */
  z.object({
    step: z.literal("prompt"),
    text: z.string(),
    session: z.string().default("main"),
    wait: z.boolean().default(true),
  }),
  /** Answers the oldest pending `session/request_permission` with an option kind or `cancelled`. */
  z.object({
    step: z.literal("respondPermission"),
    option: z.enum(["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]),
  }),
  /** `session/set_mode` (`ask`, `auto`, `deny`) for a remembered session. */
  z.object({ step: z.literal("setMode"), modeId: z.string(), session: z.string().default("main") }),
  /** Remembers the id of a seeded log under a name (for `loadSession`). */
  z.object({ step: z.literal("useSeeded"), sessionId: z.string(), as: z.string() }),
  /** `session/cancel` for a remembered session. */
  z.object({ step: z.literal("cancel"), session: z.string().default("main") }),
  /** SIGKILL the agent process. */
  z.object({ step: z.literal("kill") }),
  /** Spawn a new agent process on the same home (then `initialize` again). */
  z.object({ step: z.literal("restart") }),
  /**
   * Waits until the agent has sent a `session/update` of this kind (`tool_call`, …), a
   * permission request (`permission`), or the pending prompt's answer (`stop`).
   */
  z.object({
    step: z.literal("waitFor"),
    kind: z.string(),
    timeoutMs: z.number().int().positive().default(15_000),
  }),
  /** The next request-making step must fail with this JSON-RPC error code. */
  z.object({ step: z.literal("expectError"), code: z.number().int() }),
  /**
   * Runs the `tapedeck` CLI on the same home (e.g. `["sessions", "fork", "{main}"]`); `{name}`
   * expands to a remembered session's id; `as` remembers a session id printed on stdout.
   */
  z.object({ step: z.literal("cli"), args: z.array(z.string()), as: z.string().optional() }),
  /** Opens a second ACP client process on the same home; later steps with `client: 2` use it. */
  z.object({ step: z.literal("secondClient") }),
]);

/** A step as written in a scenario file (defaults not applied yet). */
export type ScenarioStepInput = z.input<typeof scenarioStepSchema>;
/** A validated step. */
export type ScenarioStep = z.output<typeof scenarioStepSchema>;

/** A scenario: what feeds the model, what the client advertises, and the steps. */
export const scenarioSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "kebab-case, used as the snapshot file name"),
  description: z.string().optional(),
  /** Path to a session log whose model calls the replay server serves, in order. */
  recording: z.string().optional(),
  /** How strictly requests must match the recording. */
  match: z.enum(["strict", "loose", "off"]).default("loose"),
  /** `clientCapabilities` sent in `initialize`. */
  clientCapabilities: z
    .record(z.string(), z.unknown())
    .default({ fs: { readTextFile: false, writeTextFile: false } }),
  /** Session logs copied into `<home>/sessions/` before the agent starts (absolute paths). */
  seedLogs: z.array(z.string()).default([]),
  /** Files created in the workspace before the agent starts (relative path → content). */
  files: z.record(z.string(), z.string()).default({}),
  /** Extra environment for the agent process. */
  env: z.record(z.string(), z.string()).default({}),
  /** Steps; a step may carry `client: 2` to act through the second client. */
  steps: z.array(
    z.intersection(
      scenarioStepSchema,
      z.object({ client: z.union([z.literal(1), z.literal(2)]).default(1) }),
    ),
  ),
});

/** A scenario as written. */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** A validated scenario. */
export type Scenario = z.output<typeof scenarioSchema>;

/** Validates a scenario (throws a zod error naming the bad field). */
export function defineScenario(input: ScenarioInput): Scenario {
  return scenarioSchema.parse(input);
}
