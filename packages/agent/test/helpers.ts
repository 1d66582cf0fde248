import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { type TempWorkspace, testWorkspace } from "@tapedeck/test-temp";
import {
  type AnyAgentTool,
  type InitializedRun,
  type InitializeRunOptions,
  initializeRun,
  localWorkspaceFs,
  type ToolContext,
} from "../src/index";

/** A temp home and workspace with the store of that home. */
export interface Sandbox extends TempWorkspace {
  store: SessionStore;
}

/**
 * A temp home and workspace for the current test, removed when the test finishes (whether it
 * passed or failed): call it inside a test or a `beforeEach`.
 */
export async function sandbox(): Promise<Sandbox> {
  const workspace = await testWorkspace("tapedeck-agent-");
  return { ...workspace, store: createSessionStore({ home: workspace.home }) };
}

/**
 * `initializeRun` in the sandbox's store and workspace, policy `auto` and the test model;
 * `options` adds a `sessionId` or `forkFrom`, or overrides any of those.
 */
export function initializeRunIn(
  box: Sandbox,
  input: string,
  options: Partial<InitializeRunOptions> = {},
): Promise<InitializedRun> {
  return initializeRun({
    store: box.store,
    input,
    cwd: box.cwd,
    policy: { approval: "auto" },
    model: "openai:gpt-4.1-mini",
    ...options,
  });
}

/** A tool context working in the sandbox's workspace, never cancelled. */
export function toolContext(box: Sandbox): ToolContext {
  return {
    cwd: box.cwd,
    fs: localWorkspaceFs,
    signal: new AbortController().signal,
    sessionId: "s",
  };
}

/** A {@link Sandbox} with a tool context in its workspace and a way to run tools there. */
export interface ToolSandbox extends Sandbox {
  /** The context `run` uses; a test may replace it (e.g. to add `privateRoots`). */
  context: ToolContext;
  /** Runs a tool in `context`, its arguments checked by the tool's schema. */
  run(tool: AnyAgentTool, args: unknown): Promise<string>;
}

/** A sandbox for tool tests, removed when the current test finishes. */
export async function toolSandbox(): Promise<ToolSandbox> {
  const box = await sandbox();
  const tools: ToolSandbox = {
    ...box,
    context: toolContext(box),
    run: (tool, args) => runTool(tool, args, tools.context),
  };
  return tools;
}

/** Runs a tool with arguments checked by its own schema, as the agent does. */
export function runTool(tool: AnyAgentTool, args: unknown, context: ToolContext): Promise<string> {
  return tool.execute(tool.argsSchema.parse(args), context);
}

export { isProcessAlive, type ScriptStep, scriptedProvider } from "../src/testing";
