import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { withRunTmpdir } from "@tapedeck/test-temp";
import { type BinaryLaunch, tapedeckBinary } from "./binary";

/** An ACP client (the real SDK) talking to a spawned `tapedeck acp` over stdio. */
export interface SpawnedAgent {
  child: ChildProcess;
  /** Send requests and notifications to the agent. */
  agent: acp.ClientContext;
  /** Every `session/update` received, oldest first. */
  updates: acp.SessionNotification[];
  /** Permission requests received, oldest first. */
  permissions: acp.RequestPermissionRequest[];
  /** All the agent wrote to stderr so far. */
  stderr: () => string;
  /** Its exit code (`null` after a signal). */
  exited: Promise<number | null>;
  /** Closes the connection and stdin; SIGKILLs the agent if it is still up 3 s later. */
  close(): Promise<void>;
}

/** How permission requests are answered: an option id, or a function of the request. */
export type PermissionAnswer =
  | "allow_once"
  | "reject"
  | ((
      request: acp.RequestPermissionRequest,
    ) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>);

/**
 * Spawns `node <binary> acp` (`launch`: which Node.js and binary) in `cwd` with exactly `env`
 * (plus the run's `TMPDIR` unless `env` names one) and connects the SDK client to it.
 */
export function spawnAcp(
  env: Record<string, string>,
  cwd: string,
  answer: PermissionAnswer = "allow_once",
  launch: BinaryLaunch = {},
): SpawnedAgent {
  const child = spawn(launch.node ?? process.execPath, [launch.binary ?? tapedeckBinary(), "acp"], {
    cwd,
    env: withRunTmpdir({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env }),
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
    .client({ name: "tapedeck-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      if (typeof answer === "function") return answer(params);
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

/** Waits until `check` holds (polling every 20 ms), or fails after `timeoutMs`. */
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

/**
 * Updates of one kind, in order. Generic over the notification type, so it serves the stable and
 * the `unstable` SDK entry alike.
 */
export function updatesOf<
  Update extends { sessionUpdate: string },
  Kind extends Update["sessionUpdate"],
>(
  notifications: readonly { update: Update }[],
  kind: Kind,
): Extract<Update, { sessionUpdate: Kind }>[] {
  return notifications
    .map((notification) => notification.update)
    .filter(
      (update): update is Extract<Update, { sessionUpdate: Kind }> => update.sessionUpdate === kind,
    );
}
