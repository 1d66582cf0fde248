/**
 * The viewer (`apps/web`) as a person starts it: its own process, on a free port, over a home.
 * Tests of another app start it through here instead of importing it: no app imports the other.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { withRunTmpdir } from "@tapedeck/test-temp";

/**
 * Environment variable naming how to start the viewer: a JSON array of arguments for this
 * Node.js (e.g. `["…/tsx/dist/cli.mjs", "…/apps/web/src/server/main.ts"]`). The project whose
 * tests start the viewer sets it in its vitest config; this package never looks for the app.
 */
export const TAPEDECK_VIEWER_ENV = "TAPEDECK_VIEWER";

/** A viewer started by {@link startViewer}. */
export interface RunningViewer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops it as Ctrl-C does (runs cancelled, logs closed) and waits for it to exit. */
  close(): Promise<void>;
}

/** The viewer's start command from `$TAPEDECK_VIEWER` (see {@link TAPEDECK_VIEWER_ENV}). */
function viewerArguments(): string[] {
  const configured = process.env[TAPEDECK_VIEWER_ENV];
  const parsed: unknown = configured === undefined ? undefined : JSON.parse(configured);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) {
    throw new Error(
      `test-harness: $${TAPEDECK_VIEWER_ENV} must name the viewer's start command as a JSON array of node arguments (see apps/agent-bin/vitest.config.ts).`,
    );
  }
  return parsed;
}

/**
 * Starts the viewer over `env.TAPEDECK_HOME` with the rest of `env` (the model settings its
 * composer runs with), in `cwd` (where its new runs work), on a free port; resolves once it
 * prints its URL. Fails with its stderr when it exits first or prints nothing in `timeoutMs`.
 */
export function startViewer(options: {
  env: Record<string, string>;
  cwd: string;
  timeoutMs?: number;
}): Promise<RunningViewer> {
  // No INIT_CWD: the viewer would take it (pnpm's folder) for the folder it was started in.
  const { INIT_CWD: _pnpmFolder, ...env } = options.env;
  const child = spawn(process.execPath, viewerArguments(), {
    cwd: options.cwd,
    env: withRunTmpdir({ ...env, PORT: "0", HOST: "127.0.0.1" }),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: closing it reaches tsx's child process too.
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signalGroup(child, "SIGKILL");
      reject(new Error(`the viewer ${why}; its stderr: ${stderr.trim() || "(empty)"}`));
    };
    const timer = setTimeout(
      () => fail(`printed no URL in ${options.timeoutMs ?? 60_000} ms`),
      options.timeoutMs ?? 60_000,
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("exit", (code) => fail(`exited (code ${code}) before it printed its URL`));
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /Tapedeck viewer on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url === undefined || settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        url,
        close: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          signalGroup(child, "SIGTERM");
          const killer = setTimeout(() => signalGroup(child, "SIGKILL"), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
