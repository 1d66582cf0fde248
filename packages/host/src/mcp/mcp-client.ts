/**
 * Connections to the MCP servers of a session. A server that fails to start, dies mid-call, times
 * out or answers garbage never fails the run: its tools are missing (start) or the call gets an
 * error output (the rest), and a dead server is started again on its next call. A server's stderr
 * is kept (its tail explains failures) and never reaches our stdout.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  JsonSchemaValidatorResult,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";
import { type AnyAgentTool, ToolError } from "@tapedeck/agent";
import type { Warn } from "../query-index";
import { AGENT_NAME, AGENT_VERSION } from "../version";
import { mcpAgentTool } from "./mcp-tools";
import type { McpServerConfig } from "./server-config";

/** Options of {@link connectMcpServers}. */
export interface McpConnectOptions {
  /** Working directory of stdio servers (the session's cwd). */
  cwd: string;
  /** Where notices go (a server that did not start). Default stderr. */
  warn?: Warn;
  /** Time a server has to start and list its tools. Default 30 s. */
  startTimeoutMs?: number;
  /** Time one call may take. Default 120 s. */
  callTimeoutMs?: number;
}

/** The connected servers of a session. */
export interface McpConnections {
  /** Every tool of every server that started, as agent tools. */
  tools: AnyAgentTool[];
  /** Servers that did not start, with the reason. */
  failures: { server: string; message: string }[];
  /** Stops every server (idempotent). */
  close(): Promise<void>;
}

const STDERR_TAIL = 2000;

// The SDK validates structured results against a tool's outputSchema with Ajv, built at start.
// The model reads the text either way; skipping it keeps a session's start fast.
const acceptAll: jsonSchemaValidator = {
  getValidator:
    <T>() =>
    (input: unknown): JsonSchemaValidatorResult<T> => ({
      valid: true,
      data: input as T,
      errorMessage: undefined,
    }),
};

/** One server: started lazily again after it died. */
class ServerConnection {
  private client: Client | undefined;
  private stderrTail = "";
  private strayOutput: string | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: Required<Omit<McpConnectOptions, "warn">>,
  ) {}

  private label(): string {
    return `MCP server ${JSON.stringify(this.config.name)}`;
  }

  private transport(): Transport {
    if (this.config.transport === "http") {
      return new StreamableHTTPClientTransport(new URL(this.config.url), {
        requestInit: { headers: this.config.headers },
      });
    }
    const transport = new StdioClientTransport({
      command: this.config.command,
      args: this.config.args,
      env: { ...getDefaultEnvironment(), ...this.config.env },
      cwd: this.options.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL);
    });
    return transport;
  }

  /** Starts the server and lists its tools. */
  async start(): Promise<Tool[]> {
    const client = new Client(
      { name: AGENT_NAME, version: AGENT_VERSION },
      { capabilities: {}, jsonSchemaValidator: acceptAll },
    );
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    client.onerror = (error) => {
      // A line that is not JSON-RPC (a stray log on stdout): kept to explain a later timeout.
      this.strayOutput ??= error.message;
    };
    const timeout = this.options.startTimeoutMs;
    try {
      await client.connect(this.transport(), { timeout });
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      this.client = client;
      return tools;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new ToolError(`${this.label()} did not start: ${this.reason(error)}`);
    }
  }

  private reason(error: unknown): string {
    const message = (error as Error)?.message ?? String(error);
    const tail = this.stderrTail.trim();
    return tail === "" ? message : `${message}; its stderr ends: ${tail.slice(-500)}`;
  }

  async call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      throw new ToolError("The arguments must be a JSON object.");
    }
    if (this.client === undefined) await this.start();
    const client = this.client;
    if (client === undefined) throw new ToolError(`${this.label()} is not running.`);
    try {
      return (await client.callTool(
        { name: tool, arguments: args as Record<string, unknown> },
        undefined,
        { signal, timeout: this.options.callTimeoutMs },
      )) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError(this.callFailure(tool, error));
    }
  }

  private callFailure(tool: string, error: unknown): string {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const stray =
        this.strayOutput === undefined
          ? ""
          : ` It wrote output that is not MCP: ${this.strayOutput}.`;
      return `${this.label()} did not answer ${tool} within ${Math.round(this.options.callTimeoutMs / 1000)} s.${stray}`;
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return `${this.label()} stopped during the call to ${tool} (${this.reason(error)}). It will be started again on the next call.`;
    }
    if (error instanceof McpError) return `${this.label()}: ${error.message}`;
    return `${this.label()} gave an answer that is not a valid tool result: ${this.reason(error)}`;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}

/**
 * Starts every server (in parallel) and lists its tools. Never throws for a server: one that does
 * not start is reported in `failures` (and through `warn`) and offers no tools.
 */
export async function connectMcpServers(
  servers: readonly McpServerConfig[],
  options: McpConnectOptions,
): Promise<McpConnections> {
  const warn = options.warn ?? ((text: string) => process.stderr.write(text));
  const settings = {
    cwd: options.cwd,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    callTimeoutMs: options.callTimeoutMs ?? 120_000,
  };
  const connections = servers.map((server) => new ServerConnection(server, settings));
  const started = await Promise.allSettled(connections.map((connection) => connection.start()));
  const tools: AnyAgentTool[] = [];
  const failures: McpConnections["failures"] = [];
  started.forEach((outcome, index) => {
    const connection = connections[index] as ServerConnection;
    if (outcome.status === "rejected") {
      const message = (outcome.reason as Error).message;
      failures.push({ server: connection.config.name, message });
      warn(`tapedeck: ${message}\n`);
      return;
    }
    for (const tool of outcome.value)
      tools.push(mcpAgentTool(connection.config.name, tool, connection));
  });
  let closing: Promise<void> | undefined;
  return {
    tools,
    failures,
    close: () => {
      closing ??= Promise.all(connections.map((connection) => connection.close())).then(
        () => undefined,
      );
      return closing;
    },
  };
}
