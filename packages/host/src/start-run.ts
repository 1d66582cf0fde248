import { statSync } from "node:fs";
import {
  type AnyAgentTool,
  type Approver,
  type InitializedRun,
  initializeRun,
  type LiveNotice,
  type RunResult,
  runTurn,
  type WorkspaceCheckpointer,
  type WorkspaceFs,
} from "@tapedeck/agent";
import type { LlmProvider } from "@tapedeck/llm";
import {
  type ApprovalPolicy,
  type SessionEvent,
  TapedeckError,
  toVisibleText,
  uuidv7,
} from "@tapedeck/session";
import { defaultWorkspaceId, type SessionStore, unsafeCwdReason } from "@tapedeck/session-store";
import { NoSessionToContinueError, SessionCwdMissingError, UnsafeSessionCwdError } from "./errors";
import type { McpServerConfig } from "./mcp/server-config";
import { approveRecordedServers, recordedServersRequest } from "./recorded-servers-approval";
import { runEventProjection } from "./run-event-projection";
import type { RunEvent } from "./run-events";
import {
  type McpConnector,
  type McpPlan,
  type McpSettings,
  perRunConnector,
  serversOfRun,
} from "./run-mcp";
import type { SessionTrustLedger } from "./session-trust";
import { parseSlashCommand, type SlashCommand } from "./slash-commands";

/** Which session a run works on: a new one (none of these), a resumed one, the latest, a fork. */
export interface RunTarget {
  /** Resume this session. */
  sessionId?: string;
  /** Resume the latest session of the caller's workspace (git root of `callerCwd`). */
  continueLatest?: boolean;
  /** Fork this session (at `seq`, default its end) and run in the child. */
  forkFrom?: { sessionId: string; seq?: number };
}

/** Options of `host.startRun`. */
export interface StartRunOptions extends RunTarget {
  /** What the person typed; a slash command (`/compact`, `/goal …`) is read here, once. */
  input: string;
  policy: ApprovalPolicy;
  /** The caller's directory: where a new session works, whose workspace `continueLatest` means. */
  callerCwd: string;
  /**
   * Work here instead (`--cwd DIR`). Without it a resumed or forked run works in the session's
   * recorded cwd, never silently in the caller's directory.
   */
  cwd?: string;
  /** Model id (default the configured one). */
  model?: string;
  /** Sets the session's standing goal with this run (`null` clears it). */
  goal?: string | null;
  /**
   * MCP servers given by the surface (ACP `mcpServers`, `--mcp-config`); they replace the
   * session's list. Absent: the servers recorded in the session connect again.
   */
  mcpServers?: readonly McpServerConfig[];
}

/** What a run needs from the host. */
export interface RunHost {
  store: SessionStore;
  model: string;
  providerFor(model: string): LlmProvider;
  toolsFor(workspace: { cwd: string; workspaceId: string }): AnyAgentTool[];
  /** How MCP servers are connected (timeouts, the environment of recorded servers). */
  mcp?: McpSettings;
  /** The checkpointer of runs working in `cwd` (absent or undefined: checkpoints off). */
  checkpointerFor?: (cwd: string) => WorkspaceCheckpointer | undefined;
  /** What this home knows of its sessions (`session-trust.ts`); without it every log is foreign. */
  trust?: SessionTrustLedger;
}

/** How a surface takes part in a run: events out, approvals in, cancellation. */
export interface RunHandlers {
  /**
   * The run's events (CLI output, web SSE): projected from what the run commits
   * (`runEventProjection`), in log order, with the agent's live notice (`tool_started`) in
   * between; `run_finished` comes after the run released the session.
   */
  onEvent?: (event: RunEvent) => void;
  /**
   * Each batch of events the run writes, as committed, in log order: a surface projects what it
   * shows live from these (`acpProjection`), the same projection that shows the session on load.
   */
  onCommit?: (events: readonly SessionEvent[]) => void;
  /**
   * What no log event records (`LiveNotice`: a tool call starting), for a surface that projects
   * the commits itself (ACP); `onEvent` receives these too.
   */
  onNotice?: (notice: LiveNotice) => void;
  approve?: Approver;
  signal?: AbortSignal;
  /** Tool names allowed "always" (kept across the runs of one session by the surface). */
  alwaysAllowed?: Set<string>;
  /** File access through the client (ACP `fs`), default the local disk. */
  fs?: WorkspaceFs;
  compactAt?: number;
  /**
   * Connects the run's MCP servers. Default: started for this run and stopped after it; a surface
   * that runs a session many times passes a pool (`createMcpPool` from `@tapedeck/host/mcp`).
   */
  connectMcp?: McpConnector;
}

/** A run whose first events are written; `run` drives it to its end. */
export interface PreparedRun {
  sessionId: string;
  runId: string;
  resumed: boolean;
  /** Where its tools work. */
  cwd: string;
  workspaceId: string;
  model: string;
  policy: ApprovalPolicy;
  /** The MCP servers whose tools the run offers (given, or recorded in the session). */
  mcpServers: McpServerConfig[];
  /** The slash command this input was, if any. */
  command?: SlashCommand;
  /**
   * Said once, before the first run of a session this home never ran (imported, copied from a
   * team index, or sent): which directory it will work in. Surfaces show it (CLI stderr, ACP
   * message, viewer banner).
   */
  placeNotice?: string;
  run(handlers?: RunHandlers): Promise<RunResult>;
}

function isDirectory(directory: string): boolean {
  return statSync(directory, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The latest session whose workspace is the caller's, or the error that says how to start one. */
async function latestOfWorkspace(store: SessionStore, callerCwd: string): Promise<string> {
  const workspaceId = defaultWorkspaceId(callerCwd);
  let latest: { sessionId: string; time: number } | undefined;
  for (const listing of await store.list()) {
    if (listing.header.workspaceId !== workspaceId) continue;
    const time = listing.modifiedAt.getTime();
    if (latest === undefined || time > latest.time) latest = { sessionId: listing.sessionId, time };
  }
  if (latest === undefined) throw new NoSessionToContinueError(workspaceId);
  return latest.sessionId;
}

/** Where a run works: the session's recorded cwd and workspace, or the caller's for a new one. */
async function placeOf(
  store: SessionStore,
  existing: string | undefined,
  options: StartRunOptions,
): Promise<{ cwd: string; workspaceId: string }> {
  if (options.cwd !== undefined && !isDirectory(options.cwd)) {
    throw new TapedeckError("INVALID_CWD", `${options.cwd} is not an existing directory.`);
  }
  if (existing === undefined) {
    const cwd = options.cwd ?? options.callerCwd;
    return { cwd, workspaceId: defaultWorkspaceId(cwd) };
  }
  const header = await store.readHeader(existing);
  // A log cannot choose a relative path, the root or no directory at all.
  if (options.cwd === undefined && unsafeCwdReason(header.cwd) !== undefined) {
    throw new UnsafeSessionCwdError(existing, header.cwd);
  }
  const cwd = options.cwd ?? header.cwd;
  if (!isDirectory(cwd)) throw new SessionCwdMissingError(existing, cwd);
  return { cwd, workspaceId: header.workspaceId };
}

/**
 * A run's events for `onEvent`: the projection of its own first events (from its `turn/start`;
 * repairs written before it belong to the run they close) and of each batch it commits, the
 * agent's live notices in between. Two are held back so a surface can act on them at once:
 * `approval_request` until the run asks its approver (`approving`; a decision posted before that
 * would find nothing waiting) or anything else comes first, and `run_finished` until `finish`
 * (the writer closed, so the next run may start).
 */
function runEvents(
  run: InitializedRun,
  where: { tools: readonly AnyAgentTool[]; cwd: string },
  onEvent: ((event: RunEvent) => void) | undefined,
) {
  const deliver = (event: RunEvent) => {
    try {
      onEvent?.(event);
    } catch {
      // a surface that fails to render must not break the log
    }
  };
  if (onEvent === undefined) {
    const none = () => undefined;
    return { commit: none, notice: none, approving: none, finish: none };
  }
  const project = runEventProjection({ sessionId: run.sessionId, ...where });
  const asking: RunEvent[] = [];
  const finished: RunEvent[] = [];
  const approving = () => asking.splice(0).forEach(deliver);
  const next = (event: RunEvent) => {
    approving();
    deliver(event);
  };
  const commit = (events: readonly SessionEvent[]) => {
    for (const event of events) {
      for (const projected of project(event)) {
        if (projected.type === "run_finished") finished.push(projected);
        else if (projected.type === "approval_request") asking.push(projected);
        else next(projected);
      }
    }
  };
  const first = run.newEventsToPersist.findIndex(
    (event) => event.type === "turn/start" && event.runId === run.runId,
  );
  commit(first < 0 ? [] : run.newEventsToPersist.slice(first));
  return {
    commit,
    notice: next,
    approving,
    finish: () => {
      approving();
      finished.splice(0).forEach(deliver);
    },
  };
}

/**
 * `onEvent` with the place notice (see `PreparedRun.placeNotice`) on the run's `run_started`, so
 * a surface that shows only run events (the viewer) says where a session from elsewhere works.
 */
function withPlaceNotice(
  onEvent: ((event: RunEvent) => void) | undefined,
  notice: string | undefined,
): ((event: RunEvent) => void) | undefined {
  if (onEvent === undefined || notice === undefined) return onEvent;
  return (event) => onEvent(event.type === "run_started" ? { ...event, notice } : event);
}

/**
 * Records in the home what this run proves (`ran`; `approval auto` when it runs under `auto`) and
 * returns the notice for the first run of a session from elsewhere: one this home never ran.
 */
async function noteTrust(
  host: RunHost,
  initialized: InitializedRun,
  earlier: string | undefined,
  run: { cwd: string; policy: ApprovalPolicy },
): Promise<string | undefined> {
  const trust = host.trust;
  if (trust === undefined) return undefined;
  // A fork made here (ACP session/fork) of a session run here is not foreign.
  const parent = initialized.session.header.parent?.sessionId;
  const foreign =
    earlier !== undefined &&
    !trust.has(parent === undefined ? [earlier] : [earlier, parent], "ran");
  trust.add(initialized.sessionId, "ran");
  if (run.policy.approval === "auto") trust.add(initialized.sessionId, "approval auto");
  if (!foreign) return undefined;
  const origin = (initialized.session.header as { origin?: { tool?: unknown } }).origin;
  const from =
    typeof origin?.tool === "string"
      ? `was imported from ${toVisibleText(origin.tool).text}`
      : "has not run in this home before";
  return `Session ${earlier} ${from}: it will work in ${toVisibleText(run.cwd).text}.`;
}

/**
 * The servers a run starts: a surface's own list as it is; servers recorded in the log only once
 * the person allowed them (asked once a process per session and list, the request shown as an
 * `approval_request` and its `approval_decision`, so the viewer shows the card).
 */
async function approvedServers(
  run: { runId: string; sessionId: string },
  plan: McpPlan,
  mcp: McpSettings,
  events: ReturnType<typeof runEvents>,
  approve: Approver | undefined,
  signal: AbortSignal | undefined,
): Promise<McpServerConfig[]> {
  const recorded = plan.recorded;
  if (recorded === undefined || plan.servers.length === 0) return plan.servers;
  if (mcp.approved?.has(recorded.approvalKey) === true) return plan.servers;
  const request = recordedServersRequest(run, recorded.servers);
  const { runId, callId, name, title, hiddenCharacters, options } = request;
  events.notice({
    type: "approval_request",
    runId,
    callId,
    name,
    title,
    hiddenCharacters,
    options,
  });
  const allowed = await approveRecordedServers(
    request,
    approve,
    signal ?? new AbortController().signal,
  );
  events.notice({
    type: "approval_decision",
    runId,
    callId,
    decision: allowed ? "allow_once" : "reject",
  });
  if (!allowed) return [];
  mcp.approved?.add(recorded.approvalKey);
  return plan.servers;
}

const finished = (runId: string, sessionId: string): RunResult => ({
  runId,
  sessionId,
  status: "completed",
  stopReason: "end_turn",
  usage: { inputTokens: 0, outputTokens: 0 },
});

/** `/goal` on an existing session: one `goal/set`, no turn; its `run` only reports it finished. */
async function setGoalOnly(
  store: RunHost["store"],
  sessionId: string,
  command: Extract<SlashCommand, { name: "goal" }>,
  settings: { cwd: string; workspaceId: string } & Pick<PreparedRun, "model" | "policy">,
): Promise<PreparedRun> {
  const runId = uuidv7();
  await store.append(sessionId, [{ type: "goal/set", runId, goal: command.goal }]);
  return {
    sessionId,
    runId,
    resumed: true,
    ...settings,
    command,
    mcpServers: [],
    run: async () => finished(runId, sessionId),
  };
}

/**
 * Starts a run as `architecture/contract.md` ("Runs") says: resolves the session (`continueLatest` is the
 * latest of the caller's workspace, an error when there is none), works in the session's recorded
 * cwd and workspace, reads a slash command once, resolves the provider before anything is written,
 * and persists the run's first events. `/goal` writes one `goal/set` and no turn; `/compact` is a
 * turn without a user message whose compaction says `trigger: "user"`.
 *
 * @throws NoSessionToContinueError, SessionCwdMissingError, SessionNotFoundError,
 *   SessionBusyError, ModelNotConfiguredError, TapedeckError `SLASH_COMMAND_NEEDS_SESSION`
 */
export async function startRun(host: RunHost, options: StartRunOptions): Promise<PreparedRun> {
  const { store } = host;
  const command = parseSlashCommand(options.input);
  const existing =
    options.sessionId ??
    (options.continueLatest ? await latestOfWorkspace(store, options.callerCwd) : undefined);
  if (command !== undefined && existing === undefined && options.forkFrom === undefined) {
    throw new TapedeckError(
      "SLASH_COMMAND_NEEDS_SESSION",
      `/${command.name} works on an earlier session: continue or fork one.`,
    );
  }
  const place = await placeOf(store, existing ?? options.forkFrom?.sessionId, options);
  const model = options.model ?? host.model;
  const policy = options.policy;
  if (command?.name === "goal" && existing !== undefined) {
    return setGoalOnly(store, existing, command, { ...place, model, policy });
  }
  // A missing key or a bad model id must leave nothing behind.
  const provider = host.providerFor(model);
  // `/compact` changes no file: no checkpoint for it.
  const checkpointer = command === undefined ? host.checkpointerFor?.(place.cwd) : undefined;
  const initialized: InitializedRun = await initializeRun({
    store,
    ...(existing === undefined ? {} : { sessionId: existing }),
    ...(existing === undefined && options.forkFrom !== undefined
      ? { forkFrom: options.forkFrom }
      : {}),
    ...(command === undefined ? { input: options.input } : {}),
    cwd: place.cwd,
    policy,
    model,
    ...(checkpointer === undefined ? {} : { checkpointer }),
  });
  const placeNotice = await noteTrust(host, initialized, existing ?? options.forkFrom?.sessionId, {
    cwd: place.cwd,
    policy,
  });
  const goal = command?.name === "goal" ? command.goal : options.goal;
  if (goal !== undefined) {
    await initialized.writer
      .append([{ type: "goal/set", runId: initialized.runId, goal }])
      .catch(async (error: unknown) => {
        await initialized.writer.close();
        await initialized.checkpoints?.close();
        throw error;
      });
  }
  const mcp = host.mcp ?? { env: {} };
  const mcpPlan = await serversOfRun(initialized, options.mcpServers, mcp).catch(
    async (error: unknown) => {
      await initialized.writer.close();
      await initialized.checkpoints?.close();
      throw error;
    },
  );
  const compactOnly = command?.name === "compact";
  const goalOnly = command?.name === "goal";
  return {
    sessionId: initialized.sessionId,
    runId: initialized.runId,
    resumed: initialized.resumed,
    ...place,
    model,
    policy,
    ...(command === undefined ? {} : { command }),
    ...(placeNotice === undefined ? {} : { placeNotice }),
    mcpServers: mcpPlan.servers,
    run: async ({ connectMcp, onEvent, onCommit, onNotice, approve, ...handlers } = {}) => {
      // Completed with the MCP tools before the model's first call (the projection reads it then).
      const tools = host.toolsFor(place);
      const events = runEvents(
        initialized,
        { tools, cwd: place.cwd },
        withPlaceNotice(onEvent, placeNotice),
      );
      const servers =
        compactOnly || goalOnly
          ? []
          : await approvedServers(initialized, mcpPlan, mcp, events, approve, handlers.signal);
      const connections =
        servers.length === 0
          ? undefined
          : await (connectMcp ?? perRunConnector(mcp))(servers, place.cwd);
      tools.push(...(connections?.tools ?? []));
      try {
        const result = await runTurn({
          run: initialized,
          provider,
          model,
          tools,
          policy,
          cwd: place.cwd,
          ...handlers,
          ...(approve === undefined
            ? {}
            : {
                approve: (request, signal) => {
                  events.approving();
                  return approve(request, signal);
                },
              }),
          onCommit: (committed) => {
            events.commit(committed);
            onCommit?.(committed);
          },
          onNotice: (notice) => {
            events.notice(notice);
            onNotice?.(notice);
          },
          ...(compactOnly || goalOnly ? { compactNow: compactOnly, compactOnly: true } : {}),
        });
        events.finish();
        return result;
      } finally {
        await connections?.close();
      }
    },
  };
}
