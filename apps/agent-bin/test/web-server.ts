/**
 * The viewer's server for a test of the binary's home: the web app over real HTTP on a free port,
 * its agent running the context's model environment in the context's workspace. Closed when the
 * current test finishes.
 */
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import type { CliContext } from "@tapedeck/test-harness";
import { createApp, createMemoryIndex, startServer } from "@tapedeck/web";
import { onTestFinished } from "vitest";

/** Starts the web server on the context's home; its URL and the store it reads. */
export async function serveWeb({
  env,
  workspace,
}: Pick<CliContext, "env" | "workspace">): Promise<{ url: string; store: SessionStore }> {
  const store = createSessionStore({ home: workspace.home });
  const web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: env.TAPEDECK_MODEL ?? "", env, cwd: workspace.cwd },
  });
  const http = await startServer(web.app, { port: 0 });
  onTestFinished(async () => {
    await http.close();
    await web.close();
  });
  return { url: http.url, store };
}
