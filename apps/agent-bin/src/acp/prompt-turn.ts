import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  type AnyAgentTool,
  type ApprovalRequest,
  initializeRun,
  type RunEvent,
  runTurn,
  type WorkspaceFs,
} from "@tapedeck/agent";
import { type McpServerConfig, type McpSettings, serversOfRun } from "@tapedeck/host";
import type { LlmProvider } from "@tapedeck/llm";
import type { ApprovalDecision } from "@tapedeck/session";
import type { SessionStore } from "@tapedeck/session-store";
import { compactionUpdate } from "./replay-updates";
import type { SessionState } from "./session-state";
import { toolCallFields, visibleStrings } from "./tool-updates";

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

/** What a prompt needs from the agent. */
export interface PromptContext {
  store: SessionStore;
  providerFor: (model: string) => LlmProvider;
  toolsFor: (cwd: string, sessionId: string) => AnyAgentTool[];
  clientCapabilities: acp.ClientCapabilities;
  contextWindow: number;
  compactAt: number | undefined;
  log: (message: string) => void;
  mcp: McpSettings;
}

/**
 * One `session/prompt`: a run of the session, its events streamed as `session/update`s,
 * permissions asked with `session/request_permission`, files through the client when it offers
 * them. Answers once every update has been sent.
 */
export async function promptTurn(
  context: PromptContext,
  state: SessionState,
  params: acp.PromptRequest,
  client: acp.AgentContext,
  controller: AbortController,
): Promise<acp.PromptResponse> {
  const { store, clientCapabilities, contextWindow, log } = context;
  const input = promptText(params.prompt);
  let tools = context.toolsFor(state.cwd, state.sessionId);
  let toolMap = new Map(tools.map((tool) => [tool.name, tool]));
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
  const fs: WorkspaceFs | undefined = clientFs(clientCapabilities, client, state.sessionId);
  const compactOnly = input.trim() === "/compact";
  // Resolve the provider first: a missing key or bad model id writes nothing to the log.
  const provider = context.providerFor(state.model);
  const run = await initializeRun({
    store,
    sessionId: state.sessionId,
    input,
    cwd: state.cwd,
    policy,
    model: state.model,
  });
  if (!compactOnly) {
    const servers = await serversOfRun(run, state.mcpServers, context.mcp).catch(
      async (error: unknown) => {
        await run.writer.close();
        throw error;
      },
    );
    if (servers.length > 0) {
      tools = [...tools, ...(await mcpTools(context, state, servers, send))];
      toolMap = new Map(tools.map((tool) => [tool.name, tool]));
    }
  }
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
    ...(context.compactAt === undefined ? {} : { compactAt: context.compactAt }),
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

/**
 * The tools of the session's MCP servers, started once per session (its pool) and kept across
 * prompts. A server that did not start is told to the editor once, as a notice.
 */
async function mcpTools(
  context: PromptContext,
  state: SessionState,
  servers: McpServerConfig[],
  send: (update: acp.SessionUpdate) => void,
): Promise<AnyAgentTool[]> {
  const { createMcpPool } = await import("@tapedeck/host/mcp");
  state.mcpPool ??= createMcpPool({ ...context.mcp, warn: (text) => context.log(text.trimEnd()) });
  const connections = await state.mcpPool.connect(servers, state.cwd);
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
  return connections.tools;
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
