/** The recorded sessions "Load demo sessions" copies: fixtures committed in the repo. */

/** Fixture names, parents before their forks. */
export const DEMO_FIXTURES = [
  "tool-calls",
  "interrupted-run",
  "compaction-chain",
  "fork-parent",
  "fork-child",
  "chinese-text",
  "approval",
] as const;

/**
 * Reads the demo logs from `@tapedeck/fixtures` (a dev dependency of this private app, present in
 * a clone after `pnpm install`). Returns `undefined` when the package is not installed, so the
 * action is simply not offered.
 */
export async function demoLogsFromFixtures(): Promise<
  (() => Promise<readonly string[]>) | undefined
> {
  try {
    const fixtures = await import("@tapedeck/fixtures");
    return async () => DEMO_FIXTURES.map((name) => fixtures.loadFixture(name).jsonl);
  } catch {
    return undefined;
  }
}
