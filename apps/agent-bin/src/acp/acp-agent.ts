import { statSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  type AgentConfig,
  type AnyAgentTool,
  DEFAULT_SYSTEM_PROMPT,
  defaultTools,
} from "@tapedeck/agent";
import type { McpSettings } from "@tapedeck/host";
import { type LlmProvider, parseModelId } from "@tapedeck/llm";
import { uuidv7 } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { AGENT_NAME, AGENT_VERSION } from "../version";
import { toRequestError } from "./errors";
import { MCP_CAPABILITIES, mcpServersFromAcp } from "./mcp-servers";
import { type PromptContext, promptTurn } from "./prompt-turn";
import { replayUpdates } from "./replay-updates";
import { type ListedSession, listFromStore, normalizedSession, titleOf } from "./session-files";
import { isMode, SESSION_MODES, type SessionState } from "./session-state";

export type { ListedSession } from "./session-files";
export { SESSION_MODES } from "./session-state";

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
  /** How MCP servers connect (timeouts, values of recorded variables); default no environment. */
  mcp?: McpSettings;
}

const DEFAULT_MODELS = [
  "openai:gpt-4.1-mini",
  "openai:gpt-4.1",
  "openai:o4-mini",
  "openai:gpt-5-mini",
];
const PAGE_SIZE = 50;

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
    // The SDK's sessionNotFound says only "Resource not found"; say what to do instead.
    if (state === undefined) {
      throw new acp.RequestError(
        -32002,
        `Session ${sessionId} is not open in this agent: open it with session/load or session/resume first, or start one with session/new.`,
        { sessionId },
      );
    }
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
  /** Records the editor's servers for the session's next prompts; stops the old ones if changed. */
  const useMcp = (state: SessionState, servers: readonly acp.McpServer[] | undefined) => {
    const given = mcpServersFromAcp(servers, log);
    if (JSON.stringify(given) !== JSON.stringify(state.mcpServers)) void closeMcp(state);
    state.mcpServers = given;
  };
  const closeMcp = async (state: SessionState) => {
    const pool = state.mcpPool;
    state.mcpPool = undefined;
    await pool?.close();
  };

  const promptContext: PromptContext = {
    store,
    providerFor: options.providerFor,
    toolsFor,
    get clientCapabilities() {
      return clientCapabilities;
    },
    contextWindow,
    compactAt: options.compactAt,
    log,
    mcp: options.mcp ?? { env: {} },
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
          mcpCapabilities: MCP_CAPABILITIES,
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
        },
        agentInfo: { name: AGENT_NAME, title: "Tapedeck", version: AGENT_VERSION },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, ({ params }) =>
      guard(async () => {
        checkCwd(params.cwd);
        // Tools run in it: a missing directory would only show up later as "spawn bash ENOENT".
        if (!statSync(params.cwd, { throwIfNoEntry: false })?.isDirectory()) {
          throw acp.RequestError.invalidParams(
            { cwd: params.cwd },
            `cwd ${params.cwd} is not an existing directory; open a folder that exists.`,
          );
        }
        const created = await store.create({
          cwd: params.cwd,
          seed: [
            { type: "message", runId: uuidv7(), role: "system", content: DEFAULT_SYSTEM_PROMPT },
          ],
        });
        const state = register(created.sessionId, params.cwd);
        useMcp(state, params.mcpServers);
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
        const session = await normalizedSession(store, params.sessionId);
        const state = register(params.sessionId, params.cwd);
        const tools = toolsFor(params.cwd, params.sessionId);
        const compaction = clientCapabilities.session?.compaction != null;
        // Notifications are written in call order; waiting for each one before the next would
        // only add a round of the event loop per update (a 10,000-event load sends thousands).
        const sent: Promise<void>[] = [];
        for (const update of replayUpdates(session, {
          tools,
          cwd: params.cwd,
          compactionUpdates: compaction,
        })) {
          sent.push(
            client.notify(acp.methods.client.session.update, {
              sessionId: params.sessionId,
              update,
            }),
          );
          if (sent.length >= 256) await Promise.all(sent.splice(0));
        }
        await Promise.all(sent);
        const title = titleOf(session);
        if (title !== undefined) {
          await client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update: { sessionUpdate: "session_info_update", title },
          });
        }
        useMcp(state, params.mcpServers);
        return { modes: modeState(state), configOptions: configOptions(state) };
      }),
    )
    .onRequest(acp.methods.agent.session.resume, ({ params }) =>
      guard(async () => {
        checkCwd(params.cwd);
        await normalizedSession(store, params.sessionId);
        const state = register(params.sessionId, params.cwd);
        useMcp(state, params.mcpServers);
        return { modes: modeState(state), configOptions: configOptions(state) };
      }),
    )
    .onRequest(acp.methods.agent.session.fork, ({ params }) =>
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
        useMcp(state, params.mcpServers);
        return {
          sessionId: fork.sessionId,
          modes: modeState(state),
          configOptions: configOptions(state),
        };
      }),
    )
    .onRequest(acp.methods.agent.session.list, ({ params }) =>
      guard(async () => {
        const all = await (options.listSessions ?? ((cwd) => listFromStore(store, cwd)))(
          params.cwd ?? undefined,
        );
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
        await closeMcp(state);
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
        if (state !== undefined) await closeMcp(state);
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
          return await promptTurn(promptContext, state, params, client, controller);
        } finally {
          state.active = undefined;
          finish(undefined);
        }
      }),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.active?.controller.abort();
    });
}
