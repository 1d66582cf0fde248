import { spawn } from "node:child_process";
import path from "node:path";
import { CheckpointError } from "./errors";

/** Where git works: the private store, its index and the workspace (never the user's `.git`). */
export interface GitPlace {
  /** The private bare repository (`GIT_DIR`). */
  gitDir: string;
  /** The private index (`GIT_INDEX_FILE`). */
  indexFile: string;
  /** The workspace root (`GIT_WORK_TREE`). */
  workTree: string;
}

/**
 * Settings given on every command line, so neither the user's global config nor a config in
 * a repository can run hooks, start a gc or a fsmonitor, or rewrite line endings.
 */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "gc.auto=0",
  "maintenance.auto=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.fsmonitor=false",
  "core.untrackedCache=true",
  "core.quotePath=false",
  "core.symlinks=true",
  "core.fileMode=true",
  "core.bigFileThreshold=512m",
  "index.threads=true",
  // Each write of the private index (status, update-index, write-tree) writes only what changed
  // beside a shared base, not every entry of a large workspace; an unused base goes after an hour.
  "core.splitIndex=true",
  "splitIndex.sharedIndexExpire=1.hour.ago",
];

/** `-c` settings given before every git command's arguments. */
export function safeConfigArgs(): string[] {
  return SAFE_CONFIG.flatMap((setting) => ["-c", setting]);
}

/** The environment of every git command: the caller's, less every `GIT_*`, plus ours. */
export function gitEnvironment(
  place: GitPlace,
  bare = false,
  optionalLocks = false,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  return {
    ...env,
    GIT_DIR: place.gitDir,
    ...(bare ? {} : { GIT_INDEX_FILE: place.indexFile, GIT_WORK_TREE: place.workTree }),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: optionalLocks ? "1" : "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "tapedeck",
    GIT_AUTHOR_EMAIL: "checkpoints@tapedeck.invalid",
    GIT_COMMITTER_NAME: "tapedeck",
    GIT_COMMITTER_EMAIL: "checkpoints@tapedeck.invalid",
    LC_ALL: "C",
  };
}

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Bytes written to stdin. */
  input?: string | Buffer;
  /** Exit codes that are not errors (default only 0). */
  okCodes?: readonly number[];
  /** Run on the bare store alone (no work tree, no index): `init`, `gc`. */
  bare?: boolean;
  /**
   * Let git take optional locks: only `status` on the private index, so it keeps the refreshed
   * stat data and untracked cache it computed (default: no optional locks).
   */
  optionalLocks?: boolean;
}

/** What a git command printed. */
export interface GitResult {
  stdout: Buffer;
  code: number;
}

/**
 * Runs `git ARGS` in the private place. Throws `CheckpointError` `GIT_MISSING` when git is not
 * installed, `GIT_INDEX_LOCKED` when another process holds the index's lock, `GIT_FAILED` (with
 * stderr) on another exit code not in `okCodes`.
 */
export function runGit(
  place: GitPlace,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const configArgs = safeConfigArgs();
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...configArgs, ...args], {
      cwd: options.bare === true ? path.dirname(place.gitDir) : place.workTree,
      env: gitEnvironment(place, options.bare === true, options.optionalLocks === true),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new CheckpointError("GIT_MISSING", "git is not installed (checkpoints need it).")
          : new CheckpointError("GIT_FAILED", `git could not start: ${error.message}`, {
              cause: error,
            }),
      );
    });
    child.on("close", (code) => {
      const exit = code ?? -1;
      if (exit === 0 || (options.okCodes ?? []).includes(exit)) {
        resolve({ stdout: Buffer.concat(out), code: exit });
        return;
      }
      const stderr = Buffer.concat(err).toString("utf8").trim().split("\n").slice(0, 3).join(" ");
      // git says a held index lock only in its words (exit 128 is every fatal error): here, the
      // one place that reads them, it becomes a code callers can wait on.
      const locked = /Unable to create '[^']*index\.lock': File exists/.test(stderr);
      reject(
        new CheckpointError(
          locked ? "GIT_INDEX_LOCKED" : "GIT_FAILED",
          `git ${args[0] ?? ""} failed (exit ${exit}): ${stderr}`,
        ),
      );
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}

/** Splits NUL-separated git output (a trailing NUL gives no empty entry). */
export function splitNul(buffer: Buffer): string[] {
  const text = buffer.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
