import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { type TempWorkspace, testWorkspace } from "@tapedeck/test-temp";
import { type AnyAgentTool, localWorkspaceFs, type ToolContext } from "../src/index";

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

/** A tool context working in the sandbox's workspace, never cancelled. */
export function toolContext(box: Sandbox): ToolContext {
  return {
    cwd: box.cwd,
    fs: localWorkspaceFs,
    signal: new AbortController().signal,
    sessionId: "s",
  };
}

/** Runs a tool with arguments checked by its own schema, as the agent does. */
export function runTool(tool: AnyAgentTool, args: unknown, context: ToolContext): Promise<string> {
  return tool.execute(tool.argsSchema.parse(args), context);
}

export { type ScriptStep, scriptedProvider } from "../src/testing";
