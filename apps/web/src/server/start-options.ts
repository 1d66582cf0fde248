import path from "node:path";
import { defaultHome } from "@tapedeck/session-store";

/** Where `pnpm start` reads sessions and where sessions started in the viewer run. */
export interface StartPaths {
  /** `TAPEDECK_HOME`, absolute. */
  home: string;
  /** Working directory of sessions started from the viewer (not of continued ones). */
  cwd: string;
}

/**
 * `pnpm start` runs the server in `apps/web` (`pnpm --filter`); pnpm passes the directory it was
 * called from as `INIT_CWD`. That directory, not `apps/web`, is what a relative `TAPEDECK_HOME` and
 * a new session's working directory mean — as for `pnpm tapedeck`.
 */
export function startPaths(
  env: Record<string, string | undefined>,
  processCwd = process.cwd(),
): StartPaths {
  const calledFrom = env.INIT_CWD?.trim() || processCwd;
  const home = env.TAPEDECK_HOME?.trim()
    ? path.resolve(calledFrom, env.TAPEDECK_HOME)
    : defaultHome();
  return { home, cwd: calledFrom };
}

/**
 * `TAPEDECK_WEB_RUN_IDLE_MS`: how long a run waiting for an approval may have no page attached
 * before it is cancelled. Absent or blank: the default; anything but a positive integer is refused
 * with a sentence naming the variable.
 */
export function runIdleMs(
  env: Record<string, string | undefined>,
  fallback: number,
): { ms: number } | { error: string } {
  const text = env.TAPEDECK_WEB_RUN_IDLE_MS?.trim();
  if (text === undefined || text === "") return { ms: fallback };
  const ms = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(ms) || ms <= 0) {
    return {
      error: `TAPEDECK_WEB_RUN_IDLE_MS must be a positive number of milliseconds, got ${JSON.stringify(text)}.`,
    };
  }
  return { ms };
}
