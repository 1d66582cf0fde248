import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LlmProvider } from "@tapedeck/llm";
import {
  type ReplayServer,
  type ScriptedLog,
  scriptedRecording,
  startReplayServer,
} from "@tapedeck/llm-replay";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  createApp,
  createMemoryIndex,
  createSqliteIndex,
  type RunningServer,
  startServer,
  type WebApp,
} from "../src/server/index";
import { FIRST_PAGE_ID } from "../src/shared/page-ids";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Has `page` given `url`'s HTML without the server's first view and its data: the app draws the
 * session alone, asking for its page itself (as before the server drew one). A page with no first
 * view to take out fails the request.
 */
export async function withoutFirstView(page: Page, url: string): Promise<void> {
  const drawn = new RegExp(
    `<div id="root">[\\s\\S]*</div><script type="application/json" id="${FIRST_PAGE_ID}">[^<]*</script>`,
  );
  await page.route(url, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    if (!drawn.test(html)) throw new Error(`no first view to take out of ${url}`);
    await route.fulfill({ response, body: html.replace(drawn, '<div id="root"></div>') });
  });
}

/** Whether the app has replaced the server's first view (or there was none). */
const takenOver = () => document.querySelector("[data-first-view]") === null;

/**
 * Makes `page.goto` and `page.reload` also wait until the app has taken over the server's first
 * view of a session (its script runs after that view is painted, possibly after the `load` event
 * a navigation waits for): what a test then clicks or reads is the app's.
 */
export function awaitTakeover(page: Page): void {
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    await page.waitForFunction(takenOver);
    return response;
  };
  page.reload = async (options) => {
    const response = await reload(options);
    await page.waitForFunction(takenOver);
    return response;
  };
}

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

/**
 * Launches headless Chromium with a temp folder of its own (`TMPDIR`), removed when the browser
 * closes: Chromium keeps scratch files there (`.org.chromium.Chromium.*`) and a browser closed
 * while it writes one leaves it behind, which the run's temp guard rightly reports.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium; pnpm test's preflight does) or set TAPEDECK_CHROMIUM.`,
    );
  }
  const scratch = mkdtempSync(path.join(tmpdir(), "tapedeck-chromium-"));
  const removeScratch = () => rmSync(scratch, { recursive: true, force: true });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      env: { ...process.env, TMPDIR: scratch },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
  } catch (error) {
    removeScratch();
    throw error;
  }
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    try {
      await close(options);
    } finally {
      removeScratch();
    }
  };
  return browser;
}

/** What {@link serveHome} takes. */
export interface ServeOptions {
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
}

/** A server {@link serveHome} started. */
export interface ServedHome {
  web: WebApp;
  server: RunningServer;
  /** The server's store (tests count its reads). */
  store: SessionStore;
  close(): Promise<void>;
}

/** A real server over a home, listening on a free loopback port. */
export async function serveHome(options: ServeOptions): Promise<ServedHome> {
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

/** The viewport every suite's pages get unless a test asks for another. */
export const VIEWPORT = { width: 1400, height: 900 };

/**
 * A long answer streamed slowly (serve it with `useModel(log, true)`): 40 chunks `${word}0 `,
 * `${word}1 `, … one every `chunkIntervalMs`, so a test can act while the run is still going.
 */
export function slowAnswer(word: string, chunkIntervalMs: number): ScriptedLog {
  const chunks = Array.from({ length: 40 }, (_, index) => `${word}${index} `);
  return scriptedRecording({ chunkIntervalMs })
    .system("s")
    .user("q")
    .text(chunks.join(""), { chunks })
    .end()
    .build();
}

/** The home a {@link setupBrowserSuite} serves: at least its directory. */
export interface SuiteHome {
  home: string;
  /** A directory outside the home the suite also removes (a seeded home's `work`). */
  work?: string;
  /** Directories removed after the suite instead of `home` and `work` (a parent of both). */
  removeAfter?: readonly string[];
}

/** What {@link setupBrowserSuite} takes. */
export interface BrowserSuiteOptions<Home extends SuiteHome> {
  /** Writes the home the server serves (runs while the client builds and Chromium starts). */
  seed(): Home | Promise<Home>;
  /**
   * Server options besides the home and the client (default `env`: {@link BrowserSuite.env}, so
   * no test reads the machine's model keys).
   */
  serve?(home: Home): Omit<ServeOptions, "home" | "clientDir">;
  /** Give the server a fake `OPENAI_API_KEY` (tests point it at a replay with `useModel`). */
  model?: boolean;
  /** Timeout of the set-up (ms; default vitest's hook timeout). */
  timeoutMs?: number;
}

/** Accessors of a {@link setupBrowserSuite}; valid inside tests and the hooks registered after it. */
export interface BrowserSuite<Home extends SuiteHome> {
  readonly browser: Browser;
  /** The client built into a temp directory (for more servers a test starts itself). */
  readonly clientDir: string;
  /** What `seed` returned. */
  readonly seeded: Home;
  readonly served: ServedHome;
  /** The environment the server resolves its model from (`useModel` sets its base URL). */
  readonly env: Record<string, string | undefined>;
  /** A new page ({@link VIEWPORT} unless `options` say otherwise), closed after the test. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** A new page at the served viewer's URL followed by `query` (`?session=…`). */
  open(query?: string, options?: BrowserContextOptions): Promise<Page>;
  /** Serves `log` as the model (stopped after the test); `slow` keeps the recorded timing. */
  useModel(log: ScriptedLog, slow?: boolean): Promise<ReplayServer>;
}

/**
 * One Chromium suite per test file: `beforeAll` builds the client, launches Chromium, seeds a home
 * and serves it; `afterEach` closes the test's pages and replay servers; `afterAll` tears it all
 * down and removes the temp directories.
 */
export function setupBrowserSuite<Home extends SuiteHome>(
  options: BrowserSuiteOptions<Home>,
): BrowserSuite<Home> {
  const env: Record<string, string | undefined> =
    options.model === true ? { OPENAI_API_KEY: "test-key-not-real" } : {};
  const pages: Page[] = [];
  const replays: ReplayServer[] = [];
  let browser: Browser | undefined;
  let clientDir: string | undefined;
  let seeded: Home | undefined;
  let served: ServedHome | undefined;
  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`the browser suite's ${name} is not set up yet`);
    return value;
  };

  beforeAll(async () => {
    // Settled, not all: what did start is still torn down when another part fails.
    const [client, launched, home] = await Promise.allSettled([
      buildClient(),
      launchChromium(),
      Promise.resolve().then(() => options.seed()),
    ]);
    if (client.status === "fulfilled") clientDir = client.value;
    if (launched.status === "fulfilled") browser = launched.value;
    if (home.status === "fulfilled") seeded = home.value;
    for (const result of [client, launched, home]) {
      if (result.status === "rejected") throw result.reason;
    }
    const prepared = ready(seeded, "home");
    served = await serveHome({
      env,
      ...options.serve?.(prepared),
      home: prepared.home,
      clientDir: ready(clientDir, "client"),
    });
  }, options.timeoutMs);

  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    for (const replay of replays.splice(0)) await replay.close();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    const directories = seeded?.removeAfter ?? [seeded?.home, seeded?.work];
    for (const directory of [...directories, clientDir]) {
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    }
  });

  const newPage = async (pageOptions: BrowserContextOptions = { viewport: VIEWPORT }) => {
    const page = await ready(browser, "browser").newPage(pageOptions);
    pages.push(page);
    if (pageOptions.javaScriptEnabled !== false) awaitTakeover(page);
    return page;
  };
  return {
    get browser() {
      return ready(browser, "browser");
    },
    get clientDir() {
      return ready(clientDir, "client");
    },
    get seeded() {
      return ready(seeded, "home");
    },
    get served() {
      return ready(served, "server");
    },
    env,
    newPage,
    async open(query = "", pageOptions) {
      const page = await newPage(pageOptions);
      await page.goto(`${ready(served, "server").server.url}/${query}`);
      return page;
    },
    async useModel(log, slow = false) {
      const replay = await startReplayServer(log.recording(), {
        match: "off",
        ...(slow ? { timing: "recorded" as const } : {}),
      });
      replays.push(replay);
      env.OPENAI_BASE_URL = replay.url;
      return replay;
    },
  };
}
