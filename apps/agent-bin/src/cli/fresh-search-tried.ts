/**
 * Whether the launcher (`src/launcher.ts`, the `tapedeck` executable) already tried this
 * process's `sessions search` on a fresh index before it imported the full CLI: trying again
 * would load and run `fresh-search.cjs` a second time for nothing.
 */
const TRIED = Symbol.for("tapedeck.fresh-search-tried");

/** Records that the fresh-index search was tried (and could not answer). */
export function markFreshSearchTried(): void {
  (globalThis as Record<symbol, unknown>)[TRIED] = true;
}

/** True when the launcher tried the fresh-index search already. */
export function freshSearchTried(): boolean {
  return (globalThis as Record<symbol, unknown>)[TRIED] === true;
}
