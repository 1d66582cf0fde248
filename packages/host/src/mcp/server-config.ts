/**
 * Which MCP servers a session uses: the validated form every surface hands the host (ACP
 * `mcpServers`, `tapedeck run --mcp-config FILE`), the file format (Claude Code's), and the form
 * recorded in the log (`x-mcp/servers`), which keeps variable and header names, never values.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { WITHHELD_VARIABLES } from "@tapedeck/agent";
import type { SessionEvent } from "@tapedeck/session";
import { lazySchema, TapedeckError } from "@tapedeck/session";
import { z } from "zod";
import { redactArgs, redactUrl, wasRedacted } from "./redact-config";

/** Names become part of `mcp__<server>__<tool>`: letters, digits, `_` and `-`. */
const serverNameSchema = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "use letters, digits, _ and - only"),
);

/** A server started as a child process speaking MCP on its stdin/stdout. */
export const stdioServerSchema = lazySchema(() =>
  z.strictObject({
    transport: z.literal("stdio"),
    name: serverNameSchema(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to a minimal environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
    env: z.record(z.string(), z.string()).default({}),
  }),
);

/** A server reached over MCP's streamable HTTP transport. */
export const httpServerSchema = lazySchema(() =>
  z.strictObject({
    transport: z.literal("http"),
    name: serverNameSchema(),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).default({}),
  }),
);

/** One MCP server a session connects. */
export const mcpServerConfigSchema = lazySchema(() =>
  z.discriminatedUnion("transport", [stdioServerSchema(), httpServerSchema()]),
);

/** One MCP server a session connects. */
export type McpServerConfig = z.output<ReturnType<typeof mcpServerConfigSchema>>;

const mcpConfigMarker = "tapedeck.error.McpConfigError";
const mcpConfigSymbol = Symbol.for(mcpConfigMarker);

/** A problem with an MCP configuration (a file, or `mcpServers` on the wire). */
export class McpConfigError extends TapedeckError {
  readonly [mcpConfigSymbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super("MCP_CONFIG", message, options);
    this.name = "McpConfigError";
  }

  static override isInstance(error: unknown): error is McpConfigError {
    return TapedeckError.hasMarker(error, mcpConfigMarker);
  }
}

/**
 * Validates a list of servers; names must be unique (they prefix the tool names).
 *
 * @throws McpConfigError naming the first bad entry.
 */
export function parseMcpServers(value: unknown, where: string): McpServerConfig[] {
  const parsed = z.array(mcpServerConfigSchema()).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpConfigError(
      `${where}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`,
      { cause: parsed.error },
    );
  }
  const seen = new Set<string>();
  for (const server of parsed.data) {
    if (seen.has(server.name)) {
      throw new McpConfigError(`${where}: two servers are named ${JSON.stringify(server.name)}.`);
    }
    seen.add(server.name);
  }
  return parsed.data;
}

// Claude Code's `.mcp.json` / `--mcp-config` shape. Entries may carry fields we do not use.
const claudeServerSchema = lazySchema(() =>
  z.union([
    z.looseObject({
      type: z.literal("stdio").optional(),
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
    }),
    z.looseObject({
      type: z.literal("http"),
      url: z.string(),
      headers: z.record(z.string(), z.string()).optional(),
    }),
  ]),
);
const claudeConfigSchema = lazySchema(() =>
  z.looseObject({
    mcpServers: z.record(z.string(), claudeServerSchema()),
  }),
);

/**
 * Reads an MCP config file in Claude Code's shape:
 * `{"mcpServers": {"name": {"command": "…", "args": […], "env": {…}}}}` (or
 * `{"type": "http", "url": "…", "headers": {…}}` for an HTTP server).
 *
 * @throws McpConfigError naming the file and the bad field; a missing file names the path.
 */
export function readMcpConfigFile(file: string): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new McpConfigError(`cannot read the MCP config ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = claudeConfigSchema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpConfigError(
      `${file}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"} (expected {"mcpServers": {"name": {"command": "…", "args": […], "env": {…}}}})`,
      { cause: parsed.error },
    );
  }
  const servers = Object.entries(parsed.data.mcpServers).map(([name, entry]) =>
    "command" in entry
      ? {
          transport: "stdio" as const,
          name,
          command: entry.command,
          args: entry.args ?? [],
          env: entry.env ?? {},
        }
      : { transport: "http" as const, name, url: entry.url, headers: entry.headers ?? {} },
  );
  return parseMcpServers(servers, file);
}

/** Type of the log event that records a session's MCP servers. */
export const MCP_SERVERS_EVENT = "x-mcp/servers";

/**
 * A server as recorded in the log: variable and header names only. Their values (tokens, keys)
 * never enter a log that is searched, exported and pushed to a team index.
 */
const recordedServerSchema = lazySchema(() =>
  z.discriminatedUnion("transport", [
    z.looseObject({
      transport: z.literal("stdio"),
      name: serverNameSchema(),
      command: z.string(),
      args: z.array(z.string()),
      envNames: z.array(z.string()),
    }),
    z.looseObject({
      transport: z.literal("http"),
      name: serverNameSchema(),
      url: z.string(),
      headerNames: z.array(z.string()),
    }),
  ]),
);
type RecordedServer = z.output<ReturnType<typeof recordedServerSchema>>;

/**
 * The `servers` payload of an `x-mcp/servers` event for `servers`: names of variables and
 * headers, URLs and args with their secrets taken out (`redact-config.ts`).
 */
export function recordedServers(servers: readonly McpServerConfig[]): RecordedServer[] {
  return servers.map((server) =>
    server.transport === "stdio"
      ? {
          transport: "stdio",
          name: server.name,
          command: server.command,
          args: redactArgs(server.args),
          envNames: Object.keys(server.env).sort(),
        }
      : {
          transport: "http",
          name: server.name,
          url: redactUrl(server.url),
          headerNames: Object.keys(server.headers).sort(),
        },
  );
}

/** A server as the log records it (names of variables and headers, never their values). */
export type { RecordedServer };

/**
 * The servers of the log's last `x-mcp/servers` record, as recorded (`[]` when there is none, when
 * it lists none, or when it does not parse). A log is data: these start only when this home
 * recorded the same list from the person's own configuration (`sessionTrustLedger`), and after the
 * person approved them for this run.
 */
export function lastRecordedServers(events: readonly SessionEvent[]): RecordedServer[] {
  const last = events.findLast((event) => event.type === MCP_SERVERS_EVENT) as
    | (SessionEvent & { servers?: unknown })
    | undefined;
  if (last === undefined) return [];
  const parsed = z.array(recordedServerSchema()).safeParse(last.servers);
  return parsed.success ? parsed.data : [];
}

/**
 * A digest of a recorded list, over the recorded fields only (extra fields a log carries do not
 * count, and cannot make two lists look alike).
 */
export function recordedServersDigest(servers: readonly RecordedServer[]): string {
  const canonical = servers.map((server) =>
    server.transport === "stdio"
      ? ["stdio", server.name, server.command, server.args, server.envNames]
      : ["http", server.name, server.url, server.headerNames],
  );
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/**
 * Recorded servers rebuilt to connect again: each recorded variable takes its value from `env`
 * (the resuming process's environment) when set there, except Tapedeck's own secrets
 * (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `TAPEDECK_WEB_TOKEN`, `TAPEDECK_INDEX_URL`), which go only
 * to a server whose configuration names them in this run. Headers cannot be rebuilt: an HTTP
 * server that needs them must be given again, as must a server whose URL or args had a secret
 * taken out when recorded (it is left out).
 */
export function serversFromRecord(
  recorded: readonly RecordedServer[],
  env: Record<string, string | undefined>,
): McpServerConfig[] {
  return recorded
    .map((server): McpServerConfig | undefined => {
      // A secret was taken out when it was recorded: only the person's config can give it again.
      if (wasRedacted(server.transport === "http" ? [server.url] : server.args)) return undefined;
      if (server.transport === "http") {
        return { transport: "http", name: server.name, url: server.url, headers: {} };
      }
      const serverEnv: Record<string, string> = {};
      for (const name of server.envNames) {
        if ((WITHHELD_VARIABLES as readonly string[]).includes(name)) continue;
        const value = env[name];
        if (value !== undefined) serverEnv[name] = value;
      }
      return {
        transport: "stdio",
        name: server.name,
        command: server.command,
        args: server.args,
        env: serverEnv,
      };
    })
    .filter((server) => server !== undefined);
}

/** True when the log's last record already says `servers` (no new event needed). */
export function sameAsRecorded(
  events: readonly SessionEvent[],
  servers: readonly McpServerConfig[],
): boolean {
  const last = events.findLast((event) => event.type === MCP_SERVERS_EVENT) as
    | (SessionEvent & { servers?: unknown })
    | undefined;
  const wanted = JSON.stringify(recordedServers(servers));
  return last === undefined ? servers.length === 0 : JSON.stringify(last.servers) === wanted;
}
