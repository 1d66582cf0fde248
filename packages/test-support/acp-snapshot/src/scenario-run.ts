import { type ChildProcess, spawn } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import type { Scenario } from "./scenario";
import {
  captureAgentOutput,
  captureClientInput,
  type WireEntry,
  type WireProblem,
} from "./wire-capture";

/** One spawned agent process and the ACP client connected to it. */
export interface AgentProcess {
  child: ChildProcess;
  connection: ReturnType<ReturnType<typeof acp.client>["connect"]>;
  stderr: () => string;
  exited: Promise<number | string | null>;
  killed: boolean;
}

/** A permission request the agent sent and the scenario has not answered yet. */
export interface PendingPermission {
  client: number;
  resolve: (response: acp.RequestPermissionResponse) => void;
  options: acp.PermissionOption[];
}

/** Where and how a scenario's agents run. */
export interface ScenarioRunSetup {
  scenario: Scenario;
  /** The agent command, without the `acp` argument. */
  agentCommand: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `{"<NODE>": process.execPath}`-style placeholders a step's values may hold. */
  placeholders: Record<string, string>;
}

/**
 * The state one scenario run shares between its steps: the agent processes, the wire seen so
 * far, the sessions named by the scenario, pending prompts and permission requests, and the
 * protocol violations found. The steps themselves live in `scenario-steps.ts`.
 */
export class ScenarioRun {
  readonly scenario: Scenario;
  readonly agentCommand: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly placeholders: ReadonlyArray<[string, string]>;
  readonly wire: WireEntry[] = [];
  readonly violations: string[] = [];
  readonly stderr: string[] = [];
  readonly exits: Array<number | string | null> = [];
  readonly processes = new Map<number, AgentProcess>();
  /** Scenario session names → session ids. */
  readonly sessions = new Map<string, string>();
  readonly permissions: PendingPermission[] = [];
  /** `client:sessionId` → a prompt sent with `wait: false`, not awaited yet. */
  readonly prompts = new Map<string, Promise<unknown>>();
  /** Sessions whose prompt was answered and that have had no client request since. */
  private readonly idle = new Set<string>();
  /** `client:requestId` of prompts not answered yet → their session. */
  private readonly promptRequests = new Map<string, string>();
  /** Index in {@link wire} from which the next `waitFor <update>` looks. */
  waitCursor = 0;
  /** The JSON-RPC error code the next request must fail with (`expectError`). */
  expectedError: number | undefined;

  constructor(setup: ScenarioRunSetup) {
    this.scenario = setup.scenario;
    this.agentCommand = setup.agentCommand;
    this.cwd = setup.cwd;
    this.env = setup.env;
    this.placeholders = Object.entries(setup.placeholders);
  }

  /** A step's value with every placeholder replaced by what it stands for. */
  expand(value: unknown): unknown {
    if (typeof value === "string") {
      return this.placeholders.reduce(
        (text, [name, actual]) => text.replaceAll(name, actual),
        value,
      );
    }
    if (Array.isArray(value)) return value.map((item) => this.expand(item));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, this.expand(item)]),
      );
    }
    return value;
  }

  /** Records a wire entry and checks it for updates sent after a prompt's answer. */
  readonly onEntry = (entry: WireEntry): void => {
    this.wire.push(entry);
    if (entry.from === "cli") return;
    const { message } = entry;
    const params = message.params as Record<string, unknown> | undefined;
    const sessionId = typeof params?.sessionId === "string" ? params.sessionId : undefined;
    if (entry.from === "client" && sessionId !== undefined && "method" in message) {
      this.idle.delete(sessionId);
      if (message.method === "session/prompt") {
        this.promptRequests.set(`${entry.client}:${String(message.id)}`, sessionId);
      }
    }
    if (entry.from === "agent" && !("method" in message)) {
      // The prompt's answer, in wire order: from here on the turn is over.
      const key = `${entry.client}:${String(message.id)}`;
      const answered = this.promptRequests.get(key);
      if (answered !== undefined) {
        this.promptRequests.delete(key);
        this.idle.add(answered);
      }
    }
    if (
      entry.from === "agent" &&
      message.method === "session/update" &&
      sessionId !== undefined &&
      this.idle.has(sessionId)
    ) {
      this.violations.push(
        `session/update (${String((params?.update as Record<string, unknown>)?.sessionUpdate)}) for a session after its prompt was answered`,
      );
    }
  };

  private readonly onProblem = (problem: WireProblem): void => {
    this.violations.push(
      `agent ${problem.client} wrote a non-JSON-RPC line to stdout: ${problem.line.slice(0, 120)}`,
    );
  };

  /** Spawns `<agent command> acp` for `client` and connects the ACP SDK client to it. */
  spawnAgent(client: number): AgentProcess {
    const [command, ...args] = this.agentCommand;
    const child = spawn(command!, [...args, "acp"], {
      cwd: this.cwd,
      env: this.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const exited = new Promise<number | string | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(signal ?? code)),
    );
    const stream = acp.ndJsonStream(
      captureClientInput(child.stdin!, client, this.onEntry),
      captureAgentOutput(child.stdout!, client, this.onEntry, this.onProblem),
    );
    const connection = acp
      .client({ name: "acp-snapshot" })
      .onNotification(acp.methods.client.session.update, () => undefined)
      .onRequest(
        acp.methods.client.session.requestPermission,
        ({ params }) =>
          new Promise<acp.RequestPermissionResponse>((resolve) => {
            this.permissions.push({ client, resolve, options: params.options });
          }),
      )
      .connect(stream);
    const agent: AgentProcess = { child, connection, stderr: () => errors, exited, killed: false };
    this.processes.set(client, agent);
    return agent;
  }

  /** Closes an agent's stdin, waits for it to exit (killing it after 3 s) and keeps its output. */
  async finish(agent: AgentProcess): Promise<void> {
    agent.connection.close();
    agent.child.stdin?.end();
    if (agent.child.exitCode === null && agent.child.signalCode === null) {
      const timer = setTimeout(() => agent.child.kill("SIGKILL"), 3000);
      await agent.exited;
      clearTimeout(timer);
    }
    this.stderr.push(agent.stderr());
    this.exits.push(await agent.exited);
  }

  /** The session id a scenario name stands for; throws when no step named it yet. */
  sessionIdOf(name: string): string {
    const id = this.sessions.get(name);
    if (id === undefined)
      throw new Error(
        `scenario ${this.scenario.name}: no session named ${JSON.stringify(name)} yet`,
      );
    return id;
  }

  /** The last `chars` of each running agent's stderr, for an error message. */
  stderrTail(chars: number): string {
    return [...this.processes.values()]
      .map((agent) => agent.stderr().slice(-chars))
      .join("\n---\n");
  }

  /** Runs a request step, honouring a preceding `expectError`. */
  async request<T>(send: () => Promise<T>, what: string): Promise<T | undefined> {
    const expected = this.expectedError;
    this.expectedError = undefined;
    try {
      const result = await send();
      if (expected !== undefined)
        this.violations.push(`${what}: expected error ${expected}, but it succeeded`);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (expected !== undefined && code === expected) return undefined;
      const stderrTail = this.stderrTail(1500);
      throw new Error(
        `${what} failed: ${(error as Error).message} (code ${String(code)})${stderrTail.trim() ? `\nagent stderr:\n${stderrTail}` : ""}`,
        { cause: error },
      );
    }
  }

  /** Polls `check` every 10 ms; throws with the agents' stderr after `timeoutMs`. */
  async waitUntil(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const started = Date.now();
    while (!check()) {
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `scenario ${this.scenario.name}: timed out waiting for ${what}\nagent stderr:\n${this.stderrTail(2000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
