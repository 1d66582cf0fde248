import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

/** The bundled binary (built by the globalSetup). */
export const BINARY = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../dist/tapedeck.mjs",
);

/** A temporary home and workspace. */
export async function tempWorkspace(): Promise<{
  root: string;
  home: string;
  cwd: string;
  cleanup(): Promise<void>;
}> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "tapedeck-e2e-")));
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  await mkdir(cwd, { recursive: true });
  return { root, home, cwd, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** An ACP client talking to a spawned `tapedeck acp` over stdio. */
export interface SpawnedAgent {
  child: ChildProcess;
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  /** Permission requests received, oldest first. */
  permissions: acp.RequestPermissionRequest[];
  stderr: () => string;
  exited: Promise<number | null>;
  close(): Promise<void>;
}

export function spawnAcp(
  env: Record<string, string>,
  cwd: string,
  answer: "allow_once" | "reject" = "allow_once",
): SpawnedAgent {
  const child = spawn(process.execPath, [BINARY, "acp"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const connection = acp
    .client({ name: "e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: answer } };
    })
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    );
  return {
    child,
    agent: connection.agent,
    updates,
    permissions,
    stderr: () => errors,
    exited,
    async close() {
      connection.close();
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
