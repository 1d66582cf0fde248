import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ApprovalRequest, LiveNotice, WorkspaceFs } from "@tapedeck/agent";
import { acpProjection, type McpConnector, titleOfPrompt, visibleStrings } from "@tapedeck/host";
import type { ApprovalDecision, SessionEvent } from "@tapedeck/session";
import { type AgentContext, advertiseCommands, projectionOptions, stateOf } from "./agent-context";
import type { SessionState } from "./session-state";

/** The prompt's content blocks as the user message text. */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
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
 * `session/prompt`: refuses an empty prompt and a second prompt while one runs on the session,
 * then runs {@link promptTurn}, cancellable with `session/cancel`.
 */
export async function prompt(
  context: AgentContext,
  params: acp.PromptRequest,
  client: acp.AgentContext,
): Promise<acp.PromptResponse> {
  const state = stateOf(context, params.sessionId);
  if (promptText(params.prompt).trim() === "") {
    // Nothing to answer: no model turn is run and nothing is written.
    throw acp.RequestError.invalidParams(
      { prompt: params.prompt },
      "the prompt is empty; send some text.",
    );
  }
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
    return await promptTurn(context, state, params, client, controller);
  } finally {
    state.active = undefined;
    finish(undefined);
  }
}

/**
 * One `session/prompt`: a run of the session through the host (which reads `/compact` and
 * `/goal`), its events streamed as `session/update`s, permissions asked with
 * `session/request_permission`, files through the client when it offers them. Answers once every
 * update has been sent.
 */
export async function promptTurn(
  context: AgentContext,
  state: SessionState,
  params: acp.PromptRequest,
  client: acp.AgentContext,
  controller: AbortController,
): Promise<acp.PromptResponse> {
  const { clientCapabilities, log } = context;
  const input = promptText(params.prompt);
  let chain: Promise<unknown> = Promise.resolve();
  const send = (update: acp.SessionUpdate) => {
    chain = chain
      .then(() =>
        client.notify(acp.methods.client.session.update, { sessionId: state.sessionId, update }),
      )
      .catch((error: unknown) => log(`session/update failed: ${(error as Error).message}`));
  };
  await advertiseCommands(client, state);
  const prepared = await context.host.startRun({
    sessionId: state.sessionId,
    input,
    policy: { approval: state.mode },
    callerCwd: state.cwd,
    cwd: state.cwd,
    model: state.model,
    ...(state.mcpServers === undefined ? {} : { mcpServers: state.mcpServers }),
  });
  const live = liveUpdates(context, prepared, send);
  if (prepared.placeNotice !== undefined) {
    send({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `${prepared.placeNotice}\n\n` },
      messageId: `${prepared.runId}-place`,
    });
  }
  if (!prepared.resumed && prepared.command === undefined) {
    const title = titleOfPrompt(input);
    if (title !== undefined) send({ sessionUpdate: "session_info_update", title });
  }
  const fs: WorkspaceFs | undefined = clientFs(clientCapabilities, client, state.sessionId);
  const result = await prepared.run({
    connectMcp: mcpConnector(context, state, send),
    signal: controller.signal,
    ...live,
    approve: permissionAsker(state, client, () => chain),
    alwaysAllowed: state.alwaysAllowed,
    ...(fs === undefined ? {} : { fs }),
    ...(context.compactAt === undefined ? {} : { compactAt: context.compactAt }),
  });
  if (prepared.command?.name === "goal") {
    const goal = prepared.command.goal;
    send({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: goal === null ? "Goal cleared." : `Goal set: ${goal}` },
      messageId: prepared.runId,
    });
  }
  await chain;
  if (result.status === "failed") {
    throw new acp.RequestError(-32603, result.error?.message ?? "the run failed", {
      code: result.error?.code,
      sessionId: state.sessionId,
    });
  }
  return { stopReason: result.stopReason };
}

/**
 * Connects the session's MCP servers through its pool (started once, kept across prompts). A
 * server that did not start is told to the editor once, as a notice.
 */
function mcpConnector(
  context: AgentContext,
  state: SessionState,
  send: (update: acp.SessionUpdate) => void,
): McpConnector {
  return async (servers, cwd) => {
    const { createMcpPool } = await import("@tapedeck/host/mcp");
    state.mcpPool ??= createMcpPool({
      ...context.mcp,
      warn: (text) => context.log(text.trimEnd()),
    });
    const connections = await state.mcpPool.connect(servers, cwd);
    state.mcpReported ??= new Set();
    for (const failure of connections.failures) {
      if (state.mcpReported.has(failure.server)) continue;
      state.mcpReported.add(failure.server);
      send({
        sessionUpdate: "notice",
        severity: "warning",
        title: `MCP server ${failure.server} did not start`,
        description: failure.message,
      });
    }
    // The pool keeps the servers for the next prompts: nothing to stop after this run.
    return { tools: connections.tools, close: async () => undefined };
  };
}

/**
 * A live turn's `session/update`s: the host's projection of each batch the run commits (the
 * same one `session/load` shows the log with), plus the one status no log event records, a tool
 * call starting (`in_progress`).
 */
function liveUpdates(
  context: AgentContext,
  prepared: { cwd: string; workspaceId: string },
  send: (update: acp.SessionUpdate) => void,
) {
  const project = acpProjection(projectionOptions(context, prepared));
  return {
    onCommit: (events: readonly SessionEvent[]) => {
      for (const event of events) for (const update of project(event)) send(update);
    },
    onNotice: (notice: LiveNotice) => {
      if (notice.type !== "tool_started") return;
      send({ sessionUpdate: "tool_call_update", toolCallId: notice.callId, status: "in_progress" });
    },
  };
}

/** Asks the client for permission (after every update sent so far). */
function permissionAsker(
  state: SessionState,
  client: acp.AgentContext,
  sent: () => Promise<unknown>,
) {
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> => {
    await sent();
    const response: acp.RequestPermissionResponse = await client.request(
      acp.methods.client.session.requestPermission,
      {
        sessionId: state.sessionId,
        toolCall: {
          toolCallId: request.callId,
          // The title is whole and visible (toolTitle); rawInput's strings too, so an editor that
          // shows the command from rawInput cannot be shown something else than what runs.
          title: request.title,
          kind: request.kind,
          status: "pending",
          rawInput: visibleStrings(request.input),
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
}

/** File access through the client, when it advertises `fs` (the editor's unsaved buffers). */
function clientFs(
  clientCapabilities: acp.ClientCapabilities,
  client: acp.AgentContext,
  sessionId: string,
): WorkspaceFs | undefined {
  const fs = clientCapabilities.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  return {
    async readTextFile(absolutePath, confinement) {
      if (!fs.readTextFile) {
        const { localWorkspaceFs } = await import("@tapedeck/agent");
        return localWorkspaceFs.readTextFile(absolutePath, confinement);
      }
      const response = await client.request(acp.methods.client.fs.readTextFile, {
        sessionId,
        path: absolutePath,
      });
      return response.content;
    },
    async writeTextFile(absolutePath, content, confinement) {
      if (!fs.writeTextFile) {
        const { localWorkspaceFs } = await import("@tapedeck/agent");
        return localWorkspaceFs.writeTextFile(absolutePath, content, confinement);
      }
      await client.request(acp.methods.client.fs.writeTextFile, {
        sessionId,
        path: absolutePath,
        content,
      });
    },
  };
}
