/**
 * The viewer's side of the home's auto import (`tapedeck import --auto on`): while the setting is
 * on, a look every interval imports the new and grown sessions of Claude Code, Codex, pi,
 * opencode and Gemini CLI (only changed files and sessions are read). The logs it writes reach open pages through the live watcher, as any
 * other write does, so the sessions list shows imported sessions as they appear.
 */
import { importStateDir, isAutoImportOn } from "@tapedeck/host/query";
import type { ImportEnvironment } from "@tapedeck/importers";
import type { SessionStore } from "@tapedeck/session-store";

/** Milliseconds between looks when none is given. */
export const AUTO_IMPORT_INTERVAL_MS = 2000;

/** Starts the looks; returns the function that stops them (waiting for a look in progress). */
export function startAutoImport(
  store: SessionStore,
  env: ImportEnvironment,
  intervalMs = AUTO_IMPORT_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<void> | null = null;
  const look = async () => {
    // The setting is read at each look: `--auto off` in a terminal stops the viewer's too.
    if (!isAutoImportOn(store.home)) return;
    const { importChanged } = await import("@tapedeck/importers");
    await importChanged({ store, stateDir: importStateDir(store.home), env });
  };
  const tick = () => {
    if (running !== null) return;
    running = look()
      .catch((error: unknown) => {
        console.error(`tapedeck: auto import failed: ${String(error)}`);
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
