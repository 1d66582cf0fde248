/**
 * A session whose one tool output (150 kB of build output) goes to a blob once compacted: the
 * word `zanzibarite` lies at its end, far past the 2,000-character preview the log line keeps.
 */
import { eventLogBuilder } from "@tapedeck/session/testing";
import { homeLogs } from "@tapedeck/test-harness";

export const BUILD_OUTPUT = `${"cc -O2 -c src/module.c -o build/module.o\n".repeat(3600)}error: zanzibarite missing\n`;

/** Writes session `sessionId` (cwd `cwd`) into `home`'s sessions folder, as a plain log. */
export function writeBuildOutputLog(home: string, sessionId: string, cwd: string): void {
  const log = eventLogBuilder({ sessionId, cwd })
    .turn()
    .user("build it")
    .call("run_command", { command: "make" })
    .output(BUILD_OUTPUT)
    .assistant("The build failed.")
    .end();
  homeLogs(home).write(log.jsonl());
}
