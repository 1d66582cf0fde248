import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LlmProvider } from "@tapedeck/llm";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { type Browser, chromium } from "playwright-core";
import { build } from "vite";
import {
  createApp,
  createMemoryIndex,
  createSqliteIndex,
  type RunningServer,
  startServer,
  type WebApp,
} from "../src/server/index";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Debian's Chromium (installed by `.ci/run` with apt); never a downloaded browser. */
export const CHROMIUM = process.env.TAPEDECK_CHROMIUM ?? "/usr/bin/chromium";

/** Builds the client into a temp directory (the tests never touch dist/). */
export async function buildClient(): Promise<string> {
  const outDir = mkdtempSync(path.join(tmpdir(), "tapedeck-web-client-"));
  await build({
    configFile: path.join(here, "../vite.config.ts"),
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium; pnpm test's preflight does) or set TAPEDECK_CHROMIUM.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** A real server over a home, listening on a free loopback port. */
export async function serveHome(options: {
  home: string;
  clientDir: string;
  provider?: () => LlmProvider;
  env?: Record<string, string | undefined>;
  model?: string;
  demoLogs?: () => Promise<readonly string[]>;
  /** Where new sessions' tools run (default: the home). */
  cwd?: string;
  /** Use the SQLite index (as `pnpm start` does) instead of the in-memory one. */
  sqlite?: boolean;
  /** Where "Import" looks for the other agents' default folders (`HOME`, `CODEX_HOME`, …). */
  importEnvironment?: Record<string, string | undefined>;
  /** Poll interval of the live feed (default 200 ms; the store's watch wakes it sooner). */
  liveIntervalMs?: number;
}): Promise<{
  web: WebApp;
  server: RunningServer;
  /** The server's store (tests count its reads). */
  store: SessionStore;
  close(): Promise<void>;
}> {
  const store = createSessionStore({ home: options.home });
  const index = options.sqlite === true ? createSqliteIndex(store) : createMemoryIndex(store);
  await index.sync();
  const web = createApp({
    store,
    index,
    clientDir: options.clientDir,
    liveIntervalMs: options.liveIntervalMs ?? 200,
    agent: {
      model: options.model ?? "openai:gpt-4.1-mini",
      cwd: options.cwd ?? options.home,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
      ...(options.env === undefined ? {} : { env: options.env }),
    },
    ...(options.demoLogs === undefined ? {} : { demoLogs: options.demoLogs }),
    ...(options.importEnvironment === undefined
      ? {}
      : { importEnvironment: options.importEnvironment }),
  });
  const server = await startServer(web.app, { port: 0 });
  return {
    web,
    server,
    store,
    async close() {
      await web.close();
      await server.close();
      if ("close" in index) index.close();
    },
  };
}

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = path.resolve(here, "../../../.artifacts/web");
