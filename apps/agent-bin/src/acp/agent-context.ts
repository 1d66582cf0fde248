import { statSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  type AcpProjectionOptions,
  type Host,
  type McpSettings,
  SLASH_COMMANDS,
} from "@tapedeck/host";
import { mcpServersFromAcp } from "./mcp-servers";
import { SESSION_MODES, type SessionState } from "./session-state";

/** What every ACP handler shares: the host, this connection's open sessions and settings. */
export interface AgentContext {
  host: Host;
  sessions: Map<string, SessionState>;
  clientCapabilities: acp.ClientCapabilities;
  contextWindow: number;
  compactAt: number | undefined;
  mcp: McpSettings;
  log: (message: string) => void;
  /** The model list, asked of the server once per process (configured default first). */
  models(): Promise<string[]>;
}

/**
 * How the host's projection shows this connection's sessions (live turns and `session/load`
 * alike): the tools of the session's workspace, this client's compaction capability.
 */
export function projectionOptions(
  context: AgentContext,
  place: { cwd: string; workspaceId: string },
): AcpProjectionOptions {
  return {
    tools: context.host.toolsFor(place),
    cwd: place.cwd,
    compactionUpdates: context.clientCapabilities.session?.compaction != null,
    contextWindow: context.contextWindow,
  };
}

/** The open session, or a not-found error that says how to open it. */
export function stateOf(context: AgentContext, sessionId: string): SessionState {
  const state = context.sessions.get(sessionId);
  // The SDK's sessionNotFound says only "Resource not found"; say what to do instead.
  if (state === undefined) {
    throw new acp.RequestError(
      -32002,
      `Session ${sessionId} is not open in this agent: open it with session/load or session/resume first, or start one with session/new.`,
      { sessionId },
    );
  }
  return state;
}

/** Opens (or refreshes) a session's state with the given settings. */
export function register(
  context: AgentContext,
  sessionId: string,
  settings: Pick<SessionState, "cwd" | "mode" | "model">,
): SessionState {
  const existing = context.sessions.get(sessionId);
  if (existing !== undefined) {
    Object.assign(existing, settings);
    return existing;
  }
  const state: SessionState = { sessionId, ...settings, alwaysAllowed: new Set() };
  context.sessions.set(sessionId, state);
  return state;
}

/** Refuses a relative cwd (ACP requires absolute paths) and one that is not an existing directory. */
export function checkCwd(cwd: string): void {
  if (!path.isAbsolute(cwd))
    throw acp.RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  // One rule for new, load, resume and fork: tools run in a cwd, so a missing directory would only
  // show up later as "spawn bash ENOENT".
  if (!isDirectory(cwd)) {
    throw acp.RequestError.invalidParams(
      { cwd },
      `cwd ${cwd} is not an existing directory; open a folder that exists.`,
    );
  }
}

/** True when `directory` exists and is a directory. */
export function isDirectory(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** What a session answers with: its modes and its model option. */
export async function sessionSettings(context: AgentContext, state: SessionState) {
  const models = await context.models();
  const modes: acp.SessionModeState = {
    currentModeId: state.mode,
    availableModes: SESSION_MODES,
  };
  const configOptions: acp.SessionConfigOption[] = [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: state.model,
      options: [...new Set([state.model, ...models])].map((model) => ({
        value: model,
        name: model,
      })),
    },
  ];
  return { modes, configOptions };
}

/** Sends one update after the current answer (notifications sent inside a handler go first). */
export function notifyLater(
  client: acp.AgentContext,
  sessionId: string,
  update: acp.SessionUpdate,
): void {
  setImmediate(() => {
    void client
      .notify(acp.methods.client.session.update, { sessionId, update })
      .catch(() => undefined);
  });
}

/**
 * Tells the client which slash commands the host reads (`/compact`, `/goal`), once per session
 * and connection. Sent in order with the other updates (never racing the client's next request):
 * before a load or resume answers, and at the start of the first prompt of a new or forked session
 * (whose id the client learns only from the answer).
 */
export async function advertiseCommands(
  client: acp.AgentContext,
  state: SessionState,
): Promise<void> {
  if (state.commandsAdvertised) return;
  state.commandsAdvertised = true;
  await client.notify(acp.methods.client.session.update, {
    sessionId: state.sessionId,
    update: {
      sessionUpdate: "available_commands_update",
      availableCommands: SLASH_COMMANDS.map((command) => ({
        name: command.name,
        description: command.description,
        ...(command.hint === undefined ? {} : { input: { hint: command.hint } }),
      })),
    },
  });
}

/** Keeps the editor's MCP servers for the session's next prompts; stops the old ones if changed. */
export function useMcp(
  context: AgentContext,
  state: SessionState,
  servers: readonly acp.McpServer[] | undefined,
): void {
  const given = mcpServersFromAcp(servers, context.log);
  if (JSON.stringify(given) !== JSON.stringify(state.mcpServers)) void closeMcp(state);
  state.mcpServers = given;
}

/** Stops the session's MCP servers. */
export async function closeMcp(state: SessionState): Promise<void> {
  const pool = state.mcpPool;
  state.mcpPool = undefined;
  await pool?.close();
}
