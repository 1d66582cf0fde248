import * as acp from "@agentclientprotocol/sdk/unstable";
import { DEFAULT_SYSTEM_PROMPT } from "@tapedeck/agent";
import {
  acpUpdatesOfLog,
  checkModelId,
  lastTurnSettings,
  rewindSession,
  sessionTitle,
} from "@tapedeck/host";
import { type Session, uuidv7 } from "@tapedeck/session";
import { unsafeCwdReason } from "@tapedeck/session-store/folder";
import { z } from "zod";
import {
  type AgentContext,
  advertiseCommands,
  checkCwd,
  closeMcp,
  isDirectory,
  projectionOptions,
  register,
  sessionSettings,
  stateOf,
  useMcp,
} from "./agent-context";
import { isMode, type SessionState } from "./session-state";

const PAGE_SIZE = 50;

type Client = acp.AgentContext;

/** `session/new`: a session in an existing directory, with the configured model and `ask`. */
export async function newSession(context: AgentContext, params: acp.NewSessionRequest) {
  checkCwd(params.cwd);
  // The seed carries the run that created the session (`architecture/contract.md`, "Identities"), and a new session's first run is
  // named after it: runId = sessionId, as when the CLI or the viewer create a session with its run.
  const sessionId = uuidv7();
  const created = await context.host.store.create({
    sessionId,
    cwd: params.cwd,
    seed: [{ type: "message", runId: sessionId, role: "system", content: DEFAULT_SYSTEM_PROMPT }],
  });
  // Made here: its first prompt is not a session from elsewhere (`trust`, `ran`).
  context.host.trust.add(created.sessionId, "ran");
  const state = register(context, created.sessionId, {
    cwd: params.cwd,
    mode: "ask",
    model: context.host.config.model,
  });
  useMcp(context, state, params.mcpServers);
  const settings = await sessionSettings(context, state);
  return { sessionId: created.sessionId, ...settings };
}

/**
 * Opens a stored session: repaired if its last run was cut off, working in its recorded cwd (the
 * editor's `cwd` only when that one is gone), with the mode and model its last turn used.
 */
async function openStored(context: AgentContext, sessionId: string, editorCwd: string) {
  checkCwd(editorCwd);
  const session = await context.host.openSession(sessionId);
  const state = register(context, sessionId, {
    // A log cannot choose a relative path or the root: the editor's cwd then, as when it is gone.
    cwd:
      unsafeCwdReason(session.header.cwd) === undefined && isDirectory(session.header.cwd)
        ? session.header.cwd
        : editorCwd,
    ...storedSettings(context, sessionId, session),
  });
  return { session, state };
}

/**
 * The mode and model a stored session goes on with: this connection's for it, else those its last
 * turn used, else `ask` and the configured model. A fork takes its parent's (`session` is then the
 * fork, its parent's events included).
 */
function storedSettings(
  context: AgentContext,
  sessionId: string,
  session: Session,
): Pick<SessionState, "mode" | "model"> {
  const existing = context.sessions.get(sessionId);
  const last = lastTurnSettings(session, context.host.trust);
  return {
    mode: existing?.mode ?? last?.approval ?? "ask",
    model: existing?.model ?? last?.model ?? context.host.config.model,
  };
}

/** `session/load`: every turn again as updates, then the title, modes and model. */
export async function loadSession(
  context: AgentContext,
  params: acp.LoadSessionRequest,
  client: Client,
) {
  const { session, state } = await openStored(context, params.sessionId, params.cwd);
  const updates = acpUpdatesOfLog(
    session.events,
    projectionOptions(context, { cwd: state.cwd, workspaceId: session.header.workspaceId }),
  );
  // Notifications are written in call order; waiting for each before the next would only add a
  // round of the event loop per update (a 10,000-event load sends thousands).
  const sent: Promise<void>[] = [];
  for (const update of updates) {
    sent.push(
      client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update }),
    );
    if (sent.length >= 256) await Promise.all(sent.splice(0));
  }
  await Promise.all(sent);
  const title = sessionTitle(session);
  if (title !== undefined) {
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "session_info_update", title },
    });
  }
  useMcp(context, state, params.mcpServers);
  const settings = await sessionSettings(context, state);
  await advertiseCommands(client, state);
  return settings;
}

/** `session/resume`: like load, without replaying the history. */
export async function resumeSession(
  context: AgentContext,
  params: acp.ResumeSessionRequest,
  client: Client,
) {
  const { state } = await openStored(context, params.sessionId, params.cwd);
  useMcp(context, state, params.mcpServers);
  const settings = await sessionSettings(context, state);
  await advertiseCommands(client, state);
  return settings;
}

/**
 * `session/fork`: a fork by reference at the parent's last event, in the parent's settings. A turn
 * the parent left open is repaired in the child on its first prompt, never in the parent.
 */
export async function forkSession(context: AgentContext, params: acp.ForkSessionRequest) {
  checkCwd(params.cwd);
  const options = forkMetaSchema.safeParse(params._meta ?? {});
  if (!options.success) {
    throw acp.RequestError.invalidParams(params._meta, "invalid tapedeck _meta of session/fork");
  }
  const atSeq = options.data["tapedeck/forkAtSeq"];
  // Files first: a refusal (hand edits) leaves no fork behind.
  const restored =
    options.data["tapedeck/restoreFiles"] === true
      ? await rewindSession(context.host.store, {
          sessionId: params.sessionId,
          ...(atSeq === undefined ? {} : { seq: atSeq }),
          filesOnly: true,
          force: options.data["tapedeck/overwriteHandEdits"] === true,
        })
      : undefined;
  const fork = await context.host.store.fork(params.sessionId, {
    cwd: params.cwd,
    ...(atSeq === undefined ? {} : { atSeq }),
  });
  // In a new connection too (as `session/load` does): a fork never runs less restricted, or on
  // another model, than its parent's last turn.
  const replayed = await context.host.store.readSession(fork.sessionId);
  const state = register(context, fork.sessionId, {
    cwd: params.cwd,
    ...storedSettings(context, params.sessionId, replayed),
  });
  useMcp(context, state, params.mcpServers);
  const settings = await sessionSettings(context, state);
  return {
    sessionId: fork.sessionId,
    ...settings,
    ...(restored === undefined
      ? {}
      : {
          _meta: {
            "tapedeck/restoredFiles": {
              checkpoint: restored.checkpoint,
              checkpointSeq: restored.checkpointSeq,
              changes: restored.changes,
              undo: restored.undo,
            },
          },
        }),
  };
}

/** Tapedeck's own `_meta` fields of `session/fork` (architecture/acp-mapping.md). */
const forkMetaSchema = z.looseObject({
  "tapedeck/restoreFiles": z.boolean().optional(),
  "tapedeck/forkAtSeq": z.number().int().min(0).optional(),
  "tapedeck/overwriteHandEdits": z.boolean().optional(),
});

/** `session/list`: from the index, newest first, optionally of one cwd; cursor = offset. */
export async function listSessions(context: AgentContext, params: acp.ListSessionsRequest) {
  const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
  if (!Number.isInteger(start) || start < 0) {
    throw acp.RequestError.invalidParams({ cursor: params.cursor }, "invalid cursor");
  }
  const all: acp.SessionInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await context.host.engine.listSessions(
      { all: true },
      { limit: 100, ...(cursor === undefined ? {} : { cursor }) },
    );
    for (const summary of page.items) {
      if (params.cwd != null && summary.cwd !== params.cwd) continue;
      all.push({
        sessionId: summary.id,
        cwd: summary.cwd,
        updatedAt: summary.updatedAt,
        ...(summary.title === null ? {} : { title: summary.title }),
      });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return {
    sessions: all.slice(start, start + PAGE_SIZE),
    ...(start + PAGE_SIZE < all.length ? { nextCursor: String(start + PAGE_SIZE) } : {}),
  };
}

/** `session/close`: cancels a running prompt and forgets the session. */
export async function closeSession(context: AgentContext, params: acp.CloseSessionRequest) {
  const state = stateOf(context, params.sessionId);
  if (state.active !== undefined) {
    state.active.controller.abort();
    await state.active.done.catch(() => undefined);
  }
  await closeMcp(state);
  context.sessions.delete(params.sessionId);
  return {};
}

/** `session/delete`: moves the log to the trash (refused while a prompt runs). */
export async function deleteSession(context: AgentContext, params: acp.DeleteSessionRequest) {
  if (context.sessions.get(params.sessionId)?.active !== undefined) {
    throw new acp.RequestError(
      -32603,
      "A prompt is running on this session; cancel it before deleting.",
    );
  }
  await context.host.store.delete(params.sessionId);
  const state = context.sessions.get(params.sessionId);
  if (state !== undefined) await closeMcp(state);
  context.sessions.delete(params.sessionId);
  return {};
}

/** `session/set_mode`: the approval policy of later prompts. */
export function setMode(context: AgentContext, params: acp.SetSessionModeRequest) {
  const state: SessionState = stateOf(context, params.sessionId);
  if (!isMode(params.modeId)) {
    throw acp.RequestError.invalidParams(
      { modeId: params.modeId },
      `unknown mode ${JSON.stringify(params.modeId)}; use ask, auto or deny`,
    );
  }
  state.mode = params.modeId;
  return {};
}

/** `session/set_config_option`: only `model`, checked before it is kept. */
export async function setConfigOption(
  context: AgentContext,
  params: acp.SetSessionConfigOptionRequest,
) {
  const state = stateOf(context, params.sessionId);
  if (params.configId !== "model" || typeof params.value !== "string") {
    throw acp.RequestError.invalidParams(
      { configId: params.configId },
      `unknown config option ${JSON.stringify(params.configId)}; only "model" can be set`,
    );
  }
  try {
    checkModelId(params.value);
  } catch (error) {
    throw acp.RequestError.invalidParams({ value: params.value }, (error as Error).message);
  }
  state.model = params.value;
  return { configOptions: (await sessionSettings(context, state)).configOptions };
}
