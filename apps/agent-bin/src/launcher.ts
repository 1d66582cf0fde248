/**
 * The `tapedeck` executable (`dist/tapedeck.cjs`, the package's `bin`). A CommonJS script: Node
 * starts an ES module entry ≈ 4.5 ms later than a CommonJS one (its ES module loader), which is a
 * tenth of what `tapedeck sessions search` may cost (issue #12: no slower than `rg`). A search on
 * a fresh index runs `fresh-search.cjs` through its code cache without ever starting that loader,
 * and so does `tapedeck acp` with `acp.cjs` (an editor spawns it for every session); everything
 * else imports the ES module CLI (`tapedeck.mjs`, which editors may also run directly).
 */
import nodeModule from "node:module";
import { runAcpBundle } from "./cli/acp-bundle";
import { loadCompiled } from "./cli/code-cache";
import { markFreshSearchTried } from "./cli/fresh-search-tried";
import { processStdout } from "./cli/process-stdout";

/** `sessions search` answered from a fresh index, or `undefined` for the full CLI to answer. */
async function freshSearch(args: string[]): Promise<number | undefined> {
  const bundle = loadCompiled(new URL("./fresh-search.cjs", import.meta.url));
  try {
    const io = {
      stdout: { write: processStdout() },
      stderr: { write: (text: string) => process.stderr.write(text) },
      env: process.env,
      cwd: process.cwd(),
    };
    const search = bundle.exports.searchIfFresh as (
      args: string[],
      io: object,
    ) => Promise<number | undefined>;
    return await search(args, io);
  } finally {
    bundle.saveCache();
  }
}

async function launch(argv: string[]): Promise<void> {
  if (argv[0] === "acp") {
    process.exitCode = await runAcpBundle(argv.slice(1), {
      env: process.env,
      stderr: { write: (text: string) => process.stderr.write(text) },
    });
    return;
  }
  if (argv[0] === "sessions" && argv[1] === "search") {
    const code = await freshSearch(argv.slice(2));
    if (code !== undefined) {
      process.exitCode = code;
      return;
    }
    markFreshSearchTried();
  }
  // Node 22+: the full CLI's chunks are compiled through Node's own cache (see `bin.ts`).
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  await import(new URL("./tapedeck.mjs", import.meta.url).href);
}

launch(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`tapedeck: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
