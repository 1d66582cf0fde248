/**
 * `tapedeck acp` runs its own CommonJS bundle, `acp.cjs` (see `acpApart` in `tsup.config.ts`),
 * through a V8 code cache (`code-cache.ts`), whether the executable (`tapedeck.cjs`) or the ES
 * module CLI (`tapedeck.mjs`, which editor configurations run) started it: no split chunk is
 * resolved, read and compiled by Node's ES module loader, and on Node 20 (no compile cache) the
 * functions the agent ran to answer `initialize` are not compiled again on the next spawn.
 */
import { loadCompiled } from "./code-cache";
import type { Io } from "./io";

/** What `acp.cjs` exports (`acp-command.ts`'s `acpMain`). */
type AcpMain = (
  rest: string[],
  io: Pick<Io, "env" | "stderr">,
  onInitialized: () => void,
) => Promise<number>;

/**
 * Runs `tapedeck acp …rest` from `acp.cjs`. Its code cache is written once the agent answered its
 * first `initialize` (so it holds the functions a start runs; an editor ends the agent by closing
 * its stdin or killing it, so exit comes too late or never), on the next turn of the event loop,
 * after the answer is written: only a start without an accepted cache pays for it.
 *
 * @returns the exit code
 */
export function runAcpBundle(rest: string[], io: Pick<Io, "env" | "stderr">): Promise<number> {
  const bundle = loadCompiled(new URL("./acp.cjs", import.meta.url));
  let saved = false;
  const onInitialized = () => {
    if (saved) return;
    saved = true;
    setImmediate(() => bundle.saveCache());
  };
  return (bundle.exports.acpMain as AcpMain)(rest, io, onInitialized);
}
