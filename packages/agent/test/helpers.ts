import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";

/** A temporary home and workspace, removed by `cleanup`. */
export async function sandbox(): Promise<{
  root: string;
  home: string;
  cwd: string;
  store: SessionStore;
  cleanup: () => Promise<void>;
}> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "tapedeck-agent-")));
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  const { mkdir } = await import("node:fs/promises");
  await mkdir(cwd, { recursive: true });
  return {
    root,
    home,
    cwd,
    store: createSessionStore({ home }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export { type ScriptStep, scriptedProvider } from "../src/testing";
