import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  type AgentConfig,
  type AnyAgentTool,
  type ApprovalRequest,
  DEFAULT_SYSTEM_PROMPT,
  defaultTools,
  initializeRun,
  type RunEvent,
  runTurn,
  type WorkspaceFs,
} from "@tapedeck/agent";
import { type LlmProvider, parseModelId } from "@tapedeck/llm";
import {
  type ApprovalDecision,
  EventLogCorruptError,
  normalize,
  type Session,
  uuidv7,
} from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { AGENT_NAME, AGENT_VERSION } from "../version";
import { toRequestError } from "./errors";
import { compactionUpdate, replayUpdates } from "./replay-updates";
import { toolCallFields } from "./tool-updates";

/** Approval modes, as ACP session modes. */
export const SESSION_MODES: acp.SessionMode[] = [
  { id: "ask", name: "Ask", description: "Ask before writes and commands" },
  { id: "auto", name: "Auto", description: "Run everything" },
  { id: "deny", name: "Read only", description: "Read only: writes and commands are refused" },
];

type Mode = "ask" | "auto" | "deny";

function isMode(value: string): value is Mode {
  return value === "ask" || value === "auto" || value === "deny";
}

/** A session listed by `session/list`. */
export interface ListedSession {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt?: string;
}

/** What the ACP agent needs from its host. */
export interface AcpAgentOptions {
  store: SessionStore;
  config: AgentConfig;
  /** The provider for a model id; called once per prompt. */
  providerFor: (model: string) => LlmProvider;
  /** Tools of a session (default: `defaultTools()`). */
  toolsFor?: (cwd: string, sessionId: string) => AnyAgentTool[];
  /** Sessions for `session/list`, newest first (default: from the store, by header cwd). */
  listSessions?: (cwd: string | undefined) => Promise<ListedSession[]>;
  /** Models offered in the model selector (the configured one is always included). */
  models?: string[];
  /** Context window shown in `usage_update` (default 128,000). */
  contextWindow?: number;
  /** Diagnostics (default: stderr). Never stdout. */
  log?: (message: string) => void;
  /** Estimated tokens above which a run compacts (passed to `runTurn`). */
  compactAt?: number;
}

interface SessionState {
  sessionId: string;
  cwd: string;
  mode: Mode;
  model: string;
  alwaysAllowed: Set<string>;
  active?: { controller: AbortController; done: Promise<unknown> } | undefined;
}

const DEFAULT_MODELS = [
  "openai:gpt-4.1-mini",
  "openai:gpt-4.1",
  "openai:o4-mini",
  "openai:gpt-5-mini",
];
const PAGE_SIZE = 50;

function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[${block.name}](${block.uri})`);
        break;
      case "resource":
        if ("text" in block.resource) {
          parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
        } else {
          parts.push(`[binary resource ${block.resource.uri} omitted]`);
        }
        break;
      default:
        parts.push(`[${block.type} content is not supported and was omitted]`);
    }
  }
  return parts.join("\n");
}

/**
 * The Tapedeck ACP agent: sessions are Tapedeck session logs, prompts are runs, modes are the
 * approval policy. See `architecture/acp-mapping.md`.
 */
export function createAcpAgent(options: AcpAgentOptions): acp.AgentApp {
  const { store } = options;
  const log = options.log ?? ((message: string) => process.stderr.write(`[tapedeck] ${message}\n`));
  const sessions = new Map<string, SessionState>();
  const contextWindow = options.contextWindow ?? 128_000;
  let clientCapabilities: acp.ClientCapabilities = {};
  const toolsFor = options.toolsFor ?? (() => defaultTools());

  const models = () => [...new Set([options.config.model, ...(options.models ?? DEFAULT_MODELS)])];
  const configOptions = (state: SessionState): acp.SessionConfigOption[] => [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: state.model,
      options: [...new Set([state.model, ...models()])].map((model) => ({
        value: model,
        name: model,
      })),
    },
  ];
  const modeState = (state: SessionState): acp.SessionModeState => ({
    currentModeId: state.mode,
    availableModes: SESSION_MODES,
  });
  const stateOf = (sessionId: string): SessionState => {
    const state = sessions.get(sessionId);
    if (state === undefined) throw acp.RequestError.sessionNotFound(sessionId);
    return state;
  };
  const register = (sessionId: string, cwd: string): SessionState => {
    const existing = sessions.get(sessionId);
    if (existing !== undefined) {
      existing.cwd = cwd;
      return existing;
    }
    const state: SessionState = {
      sessionId,
      cwd,
      mode: "ask",
      model: options.config.model,
      alwaysAllowed: new Set(),
    };
    sessions.set(sessionId, state);
    return state;
  };
  const checkCwd = (cwd: string) => {
    if (!path.isAbsolute(cwd))
      throw acp.RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  };
  const warnMcp = (
    client: acp.AgentContext,
    sessionId: string,
    servers: readonly acp.McpServer[] | undefined,
  ) => {
    if (servers === undefined || servers.length === 0) return;
    const names = servers.map((server) => server.name).join(", ");
    log(`MCP servers are not supported yet; not connecting: ${names}`);
    setImmediate(() => {
      void client
        .notify(acp.methods.client.session.update, {
          sessionId,
          update: {
            sessionUpdate: "notice",
            severity: "warning",
            title: "MCP servers are not supported by Tapedeck yet",
            description: `These servers were not connected and their tools are unavailable: ${names}.`,
          },
        })
        .catch(() => undefined);
    });
  };

  /** Reads a session, writing the normalize repairs first when its last run was cut off. */
  const normalizedSession = async (sessionId: string): Promise<Session> => {
    let session: Session;
    try {
      session = await store.readSession(sessionId);
    } catch (error) {
      if (!(EventLogCorruptError.isInstance(error) && error.code === "TORN_TAIL")) throw error;
      await store.repair(sessionId);
      session = await store.readSession(sessionId);
    }
    if (normalize(session).length === 0) return session;
    const writer = await store.openWriter(sessionId);
    try {
      const repairs = normalize(writer.session);
      if (repairs.length > 0) await writer.append(repairs);
      return writer.session;
    } finally {
      await writer.close();
    }
  };

  const titleOf = (session: Session): string | undefined => {
    for (const event of session.events) {
      if (event.type === "message" && event.role === "user") {
        const line = event.content.trim().split("\n")[0] ?? "";
        return line.length > 80 ? `${line.slice(0, 79)}…` : line;
      }
    }
    return undefined;
  };

  const defaultList = async (cwd: string | undefined): Promise<ListedSession[]> => {
    const listings = await store.list();
    const chosen = listings
      .filter((listing) => cwd === undefined || listing.header.cwd === cwd)
      .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
    const result: ListedSession[] = [];
    for (const listing of chosen) {
      const entry: ListedSession = {
        sessionId: listing.sessionId,
        cwd: listing.header.cwd,
        updatedAt: listing.modifiedAt.toISOString(),
      };
      try {
        const title = titleOf(await store.readSession(listing.sessionId));
        if (title !== undefined) entry.title = title;
      } catch {
        // a damaged log is still listed, without a title
      }
      result.push(entry);
    }
    return result;
  };

  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toRequestError(error);
    }
  };

  return acp
    .agent({ name: AGENT_NAME })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: false, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
        },
        agentInfo: { name: AGENT_NAME, title: "Tapedeck", version: AGENT_VERSION },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, ({ params, client }) =>
      guard(async () => {
        checkCwd(params.cwd);
        const created = await store.create({
          cwd: params.cwd,
          seed: [
            { type: "message", runId: uuidv7(), role: "system", content: DEFAULT_SYSTEM_PROMPT },
          ],
        });
        const state = register(created.sessionId, params.cwd);
        warnMcp(client, created.sessionId, params.mcpServers);
        return {
          sessionId: created.sessionId,
          modes: modeState(state),
          configOptions: configOptions(state),
        };
      }),
    )
    .onRequest(acp.methods.agent.session.load, ({ params, client }) =>
      guard(async () => {
        checkCwd(params.cwd);
        const session = await normalizedSession(params.sessionId);
        const state = register(params.sessionId, params.cwd);
        const tools = toolsFor(params.cwd, params.sessionId);
        const compaction = clientCapabilities.session?.compaction != null;
        for (const update of replayUpdates(session, {
          tools,
          cwd: params.cwd,
          compactionUpdates: compaction,
        })) {
          await client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update,
          });
        }
        const title = titleOf(session);
        if (title !== undefined) {
          await client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update: { sessionUpdate: "session_info_update", title },
          });
        }
        warnMcp(client, params.sessionId, params.mcpServers);
        return { modes: modeState(state), configOptions: configOptions(state) };
      }),
    )
    .onRequest(acp.methods.agent.session.resume, ({ params, client }) =>
      guard(async () => {
        checkCwd(params.cwd);
        await normalizedSession(params.sessionId);
        const state = register(params.sessionId, params.cwd);
        warnMcp(client, params.sessionId, params.mcpServers);
        return { modes: modeState(state), configOptions: configOptions(state) };
      }),
    )
    .onRequest(acp.methods.agent.session.fork, ({ params, client }) =>
      guard(async () => {
        checkCwd(params.cwd);
        // A fork by reference at the parent's last event; a turn the parent left open is repaired
        // in the child on its first prompt (initializeRun), never in the parent.
        const fork = await store.fork(params.sessionId, { cwd: params.cwd });
        const parent = sessions.get(params.sessionId);
        const state = register(fork.sessionId, params.cwd);
        if (parent !== undefined) {
          state.mode = parent.mode;
          state.model = parent.model;
        }
        warnMcp(client, fork.sessionId, params.mcpServers);
        return {
          sessionId: fork.sessionId,
          modes: modeState(state),
          configOptions: configOptions(state),
        };
      }),
    )
    .onRequest(acp.methods.agent.session.list, ({ params }) =>
      guard(async () => {
        const all = await (options.listSessions ?? defaultList)(params.cwd ?? undefined);
        const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
        if (!Number.isInteger(start) || start < 0) {
          throw acp.RequestError.invalidParams({ cursor: params.cursor }, "invalid cursor");
        }
        const page = all.slice(start, start + PAGE_SIZE);
        return {
          sessions: page.map((entry) => ({
            sessionId: entry.sessionId,
            cwd: entry.cwd,
            ...(entry.title === undefined ? {} : { title: entry.title }),
            ...(entry.updatedAt === undefined ? {} : { updatedAt: entry.updatedAt }),
          })),
          ...(start + PAGE_SIZE < all.length ? { nextCursor: String(start + PAGE_SIZE) } : {}),
        };
      }),
    )
    .onRequest(acp.methods.agent.session.close, ({ params }) =>
      guard(async () => {
        const state = stateOf(params.sessionId);
        if (state.active !== undefined) {
          state.active.controller.abort();
          await state.active.done.catch(() => undefined);
        }
        sessions.delete(params.sessionId);
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.delete, ({ params }) =>
      guard(async () => {
        const state = sessions.get(params.sessionId);
        if (state?.active !== undefined) {
          throw toRequestError(
            new Error("A prompt is running on this session; cancel it before deleting."),
          );
        }
        await store.delete(params.sessionId);
        sessions.delete(params.sessionId);
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.setMode, ({ params }) =>
      guard(async () => {
        const state = stateOf(params.sessionId);
        if (!isMode(params.modeId)) {
          throw acp.RequestError.invalidParams(
            { modeId: params.modeId },
            `unknown mode ${JSON.stringify(params.modeId)}; use ask, auto or deny`,
          );
        }
        state.mode = params.modeId;
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) =>
      guard(async () => {
        const state = stateOf(params.sessionId);
        if (params.configId !== "model" || typeof params.value !== "string") {
          throw acp.RequestError.invalidParams(
            { configId: params.configId },
            `unknown config option ${JSON.stringify(params.configId)}; only "model" can be set`,
          );
        }
        try {
          parseModelId(params.value);
        } catch (error) {
          throw acp.RequestError.invalidParams({ value: params.value }, (error as Error).message);
        }
        state.model = params.value;
        return { configOptions: configOptions(state) };
      }),
    )
    .onRequest(acp.methods.agent.session.prompt, ({ params, client }) =>
      guard(async () => {
        const state = stateOf(params.sessionId);
        if (state.active !== undefined) {
          throw new acp.RequestError(
            -32603,
            `Session ${state.sessionId} is busy: a prompt is already running on it. Cancel it or wait for it to finish.`,
            { code: "SESSION_BUSY", sessionId: state.sessionId },
          );
        }
        const controller = new AbortController();
        let finish: (value: unknown) => void = () => undefined;
        state.active = { controller, done: new Promise((resolve) => (finish = resolve)) };
        try {
          return await prompt(state, params, client, controller);
        } finally {
          state.active = undefined;
          finish(undefined);
        }
      }),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.active?.controller.abort();
    });

  async function prompt(
    state: SessionState,
    params: acp.PromptRequest,
    client: acp.AgentContext,
    controller: AbortController,
  ): Promise<acp.PromptResponse> {
    const input = promptText(params.prompt);
    const tools = toolsFor(state.cwd, state.sessionId);
    const toolMap = new Map(tools.map((tool) => [tool.name, tool]));
    const policy = { approval: state.mode };
    let chain: Promise<unknown> = Promise.resolve();
    const send = (update: acp.SessionUpdate) => {
      chain = chain
        .then(() =>
          client.notify(acp.methods.client.session.update, { sessionId: state.sessionId, update }),
        )
        .catch((error: unknown) => log(`session/update failed: ${(error as Error).message}`));
    };
    const compaction = clientCapabilities.session?.compaction != null;
    const onEvent = (event: RunEvent) => {
      switch (event.type) {
        case "text_delta":
          send({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: event.text },
            messageId: event.requestId,
          });
          break;
        case "tool_call":
          send({
            sessionUpdate: "tool_call",
            ...toolCallFields(
              event.callId,
              event.name,
              JSON.stringify(event.input),
              toolMap,
              state.cwd,
            ),
            status: "pending",
          });
          break;
        case "tool_started":
          send({
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            status: "in_progress",
          });
          break;
        case "tool_result":
          send({
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            status: event.isError ? "failed" : "completed",
            content: [{ type: "content", content: { type: "text", text: event.output } }],
            rawOutput: { output: event.output, isError: event.isError },
          });
          break;
        case "compaction":
          send(compactionUpdate(String(event.seq), event.summary, compaction));
          break;
        case "usage":
          send({
            sessionUpdate: "usage_update",
            used: event.usage.inputTokens + event.usage.outputTokens,
            size: contextWindow,
          });
          break;
        default:
          break;
      }
    };
    const approve = async (
      request: ApprovalRequest,
      signal: AbortSignal,
    ): Promise<ApprovalDecision> => {
      await chain;
      const response: acp.RequestPermissionResponse = await client.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId: state.sessionId,
          toolCall: {
            toolCallId: request.callId,
            title: request.title,
            kind: request.kind,
            status: "pending",
            rawInput: request.input,
            locations: request.locations.map((location) => ({ path: location })),
          },
          options: [
            { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
            {
              optionId: "allow_always",
              name: `Always allow ${request.name}`,
              kind: "allow_always",
            },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      if (response.outcome.outcome === "cancelled") return "cancelled";
      const chosen = response.outcome.optionId;
      return chosen === "allow_once" || chosen === "allow_always" ? chosen : "reject";
    };
    const fs: WorkspaceFs | undefined = clientFs(client, state.sessionId);
    const compactOnly = input.trim() === "/compact";
    // Resolve the provider first: a missing key or bad model id writes nothing to the log.
    const provider = options.providerFor(state.model);
    const run = await initializeRun({
      store,
      sessionId: state.sessionId,
      input,
      cwd: state.cwd,
      policy,
      model: state.model,
    });
    if (!run.resumed && !compactOnly) {
      const title = input.trim().split("\n")[0] ?? "";
      send({
        sessionUpdate: "session_info_update",
        title: title.length > 80 ? `${title.slice(0, 79)}…` : title,
      });
    }
    const result = await runTurn({
      run,
      provider,
      model: state.model,
      tools,
      policy,
      cwd: state.cwd,
      signal: controller.signal,
      onEvent,
      approve,
      alwaysAllowed: state.alwaysAllowed,
      ...(fs === undefined ? {} : { fs }),
      ...(options.compactAt === undefined ? {} : { compactAt: options.compactAt }),
      ...(compactOnly ? { compactNow: true, compactOnly: true } : {}),
    });
    await chain;
    if (result.status === "failed") {
      throw new acp.RequestError(-32603, result.error?.message ?? "the run failed", {
        code: result.error?.code,
        sessionId: state.sessionId,
      });
    }
    return { stopReason: result.stopReason };
  }

  function clientFs(client: acp.AgentContext, sessionId: string): WorkspaceFs | undefined {
    const fs = clientCapabilities.fs;
    if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
    return {
      async readTextFile(absolutePath) {
        if (!fs.readTextFile) {
          const { readFile } = await import("node:fs/promises");
          return readFile(absolutePath, "utf8");
        }
        const response = await client.request(acp.methods.client.fs.readTextFile, {
          sessionId,
          path: absolutePath,
        });
        return response.content;
      },
      async writeTextFile(absolutePath, content) {
        if (!fs.writeTextFile) {
          const { localWorkspaceFs } = await import("@tapedeck/agent");
          return localWorkspaceFs.writeTextFile(absolutePath, content);
        }
        await client.request(acp.methods.client.fs.writeTextFile, {
          sessionId,
          path: absolutePath,
          content,
        });
      },
    };
  }
}
