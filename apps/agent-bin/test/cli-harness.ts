import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_SYSTEM_PROMPT, toolDefinitions } from "@tapedeck/agent";
import { standardTools } from "@tapedeck/host";
import {
  type ReplayServer,
  type ScriptedLog,
  type ScriptedRecordingOptions,
  scriptedRecording,
  startReplayServer,
} from "@tapedeck/llm-replay";
import { createMemoryQueryEngine } from "@tapedeck/session-query";
import { afterEach } from "vitest";
import { BINARY, tempWorkspace } from "./binary";

type Workspace = Awaited<ReturnType<typeof tempWorkspace>>;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What one `tapedeck …` process did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A scripted conversation offering the tools every run offers. */
export function script(options: Partial<ScriptedRecordingOptions> = {}) {
  return scriptedRecording({
    tools: toolDefinitions(standardTools(createMemoryQueryEngine(), "recording")),
    ...options,
  }).system(DEFAULT_SYSTEM_PROMPT);
}

/**
 * A temp home and workspace, a replay server for `recording` (if any), and `cli(args)` running
 * the built binary in the workspace (or `options.cwd`) against it. Cleaned up after each test.
 */
export async function cliContext(scripted?: ScriptedLog | ((workspace: Workspace) => ScriptedLog)) {
  const workspace = await tempWorkspace();
  cleanups.push(workspace.cleanup);
  let server: ReplayServer | undefined;
  const recording = typeof scripted === "function" ? scripted(workspace) : scripted;
  if (recording !== undefined) {
    server = await startReplayServer(recording.recording());
    const started = server;
    cleanups.push(() => started.close());
  }
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: workspace.root,
    TAPEDECK_HOME: workspace.home,
    TAPEDECK_MODEL: "openai:gpt-4.1-mini",
    OPENAI_API_KEY: "test-key-not-real",
    OPENAI_BASE_URL: server?.url ?? "http://127.0.0.1:9/v1",
  };
  const cli = (
    args: string[],
    onStderr?: (text: string, child: ReturnType<typeof spawn>) => void,
    options: { cwd?: string } = {},
  ) =>
    new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [BINARY, ...args], {
        cwd: options.cwd ?? workspace.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        onStderr?.(stderr, child);
      });
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
  const sessionFiles = async () =>
    (await readdir(path.join(workspace.home, "sessions")).catch(() => [])).filter((name) =>
      name.endsWith(".jsonl"),
    );
  return { workspace, server, cli, sessionFiles };
}

/** JSON lines as objects. */
export function lines(text: string): Record<string, unknown>[] {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
