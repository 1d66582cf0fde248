import os from "node:os";

/**
 * A spawned process's environment with `TMPDIR` set to this test run's temp directory (the one
 * the guard of `global-setup.ts` checks and removes), unless `env` names one itself. A test that
 * gives a child a whole environment of its own (`binaryEnv`, `{ PATH, HOME }`) would otherwise
 * send what the child writes to the temp directory (`os.tmpdir()` in the `tapedeck` binary, a
 * build's scratch files) to the machine's `/tmp`, where no guard looks.
 */
export function withRunTmpdir(env: Readonly<Record<string, string>>): Record<string, string> {
  return { TMPDIR: os.tmpdir(), ...env };
}
