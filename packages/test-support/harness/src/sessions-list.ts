import { expect } from "vitest";
import type { CliContext } from "./cli-context";

/** A row of `tapedeck sessions list --json` (the fields the tests read). */
export interface ListedSession {
  id: string;
  eventCount: number;
  title?: string;
  status?: string;
}

/** Runs `tapedeck sessions list --all --json` through `cli`, expects exit 0, returns its rows. */
export async function listSessions(cli: CliContext["cli"]): Promise<ListedSession[]> {
  const listed = await cli(["sessions", "list", "--all", "--json"]);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as ListedSession[];
}
