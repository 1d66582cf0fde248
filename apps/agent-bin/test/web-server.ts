/**
 * The viewer's server for a test of the binary's home: `apps/web` started as its own process
 * (`startViewer` of the harness) on a free port, its agent running the context's model
 * environment in the context's workspace. Stopped when the current test finishes.
 */
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { type CliContext, startViewer } from "@tapedeck/test-harness";
import { onTestFinished } from "vitest";

/** Starts the viewer on the context's home; its URL and a store over the same home. */
export async function serveWeb({
  env,
  workspace,
}: Pick<CliContext, "env" | "workspace">): Promise<{ url: string; store: SessionStore }> {
  const viewer = await startViewer({ env, cwd: workspace.cwd });
  onTestFinished(() => viewer.close());
  return { url: viewer.url, store: createSessionStore({ home: workspace.home }) };
}
