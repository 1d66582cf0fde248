import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import { createSessionStore, type SessionStore } from "../src/index";
import { tempDirectory } from "./helpers";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Bundles `children/<name>.ts` into one .mjs (tsx would add ~300 ms to each of the hundreds of
 * spawns the crash test makes).
 */
export async function bundleChild(name = "writer-child"): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), "tapedeck-child-")), `${name}.mjs`);
  await build({
    entryPoints: [join(here, "children", `${name}.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
  });
  return outfile;
}

/** What {@link childHome} sets up for a suite: the bundled child, one temp home and its store. */
export interface ChildHome {
  script: string;
  temp: ReturnType<typeof tempDirectory>;
  store: SessionStore;
}

/**
 * Registers, for the calling test file, the bundled child `name` with one temp home and a store
 * over it (made before all tests, removed after); the fields are set once `beforeAll` has run.
 */
export function childHome(name = "writer-child"): ChildHome {
  const home = {} as ChildHome;
  beforeAll(async () => {
    home.script = await bundleChild(name);
    home.temp = tempDirectory();
    home.store = createSessionStore({ home: home.temp.home });
  });
  afterAll(() => {
    home.temp?.cleanup();
    if (home.script !== undefined) rmSync(dirname(home.script), { recursive: true, force: true });
  });
  return home;
}

/** A spawned child with its stdout split into lines. */
export interface Child {
  process: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves with the first line matching `predicate`. */
  waitFor: (predicate: (line: string) => boolean) => Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: { predicate: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let pending = "";
  let errors = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let at = pending.indexOf("\n");
    while (at !== -1) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      at = pending.indexOf("\n");
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    errors += chunk;
  });
  child.stdin.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    lines,
    stderr: () => errors,
    waitFor: (predicate) => {
      const found = lines.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void exited.then(() =>
          reject(new Error(`child exited before the expected line; stderr: ${errors}`)),
        );
      });
    },
    exited,
  };
}
