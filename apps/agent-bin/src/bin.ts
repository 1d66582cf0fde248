/** The `tapedeck` executable. */
import { main, processIo } from "./cli/main";

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
