/** The `tapedeck` executable. */
import nodeModule from "node:module";
import { main, processIo } from "./cli/main";

// Node 22+: cache the compiled bundle chunks on disk, so later starts skip most of the compile.
// Every command's code is imported lazily, after this call. Node 20 has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `tapedeck: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
