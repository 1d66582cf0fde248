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
