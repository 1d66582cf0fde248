import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type Recording, type ReplayServer, startReplayServer } from "@tapedeck/llm-replay";
import { binaryEnv, homeLogs, tapedeckCommand, tempWorkspace } from "@tapedeck/test-harness";
import type { Scenario, ScenarioStep } from "./scenario";
import {
  captureAgentOutput,
  captureClientInput,
  type WireEntry,
  type WireProblem,
} from "./wire-capture";

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /**
   * The agent command, without the `acp` argument; default: `node <tapedeck binary>` as
   * `@tapedeck/test-harness` resolves it (the binary `$TAPEDECK_BINARY` names).
   */
  command?: readonly string[];
  /** The model's responses (a recording built for this scenario); none = no model calls allowed. */
  recording?: Recording;
  /** Keep the temp home for inspection instead of removing it. */
  keepHome?: boolean;
  /**
   * Placeholders a scenario may write in its steps (`{"<NODE>": process.execPath}`): expanded
   * before sending, and put back when snapshotting, so snapshots hold no machine paths.
   */
  placeholders?: Record<string, string>;
}

/** Everything a scenario run observed. */
export interface ScenarioResult {
  scenario: string;
  /** Every message in both directions, in order, plus CLI calls. */
  wire: WireEntry[];
  /** Raw session logs at the end, by session id. */
  logs: Map<string, string>;
  /** stderr of each agent process, in spawn order. */
  stderr: string[];
  /** Exit status of each agent process (`SIGKILL` for a killed one). */
  exits: Array<number | string | null>;
  /** Protocol problems found: each one fails `expectScenarioSnapshot`. */
  violations: string[];
  /** Paths to normalise. */
  home: string;
  cwd: string;
  /** The placeholders of {@link RunScenarioOptions.placeholders}. */
  placeholders: Record<string, string>;
}

interface AgentProcess {
  child: ChildProcess;
  connection: ReturnType<ReturnType<typeof acp.client>["connect"]>;
  stderr: () => string;
  exited: Promise<number | string | null>;
  killed: boolean;
}

interface PendingPermission {
  client: number;
  resolve: (response: acp.RequestPermissionResponse) => void;
  options: acp.PermissionOption[];
}

/**
 * Spawns the agent with a fresh `TAPEDECK_HOME` and `OPENAI_BASE_URL` at a replay server, drives
 * it through the scenario's steps with the real ACP SDK client, and captures the wire, stderr,
 * exit status and final logs. It throws only when a step cannot go on (a timeout, an unexpected
 * error); protocol problems are collected in `violations`.
 */
export async function runScenario(
  scenario: Scenario,
  options: RunScenarioOptions = {},
): Promise<ScenarioResult> {
  const agentCommand = options.command ?? tapedeckCommand();
  const placeholders = Object.entries(options.placeholders ?? {});
  /** A step's value with every placeholder replaced by what it stands for. */
  const expand = (value: unknown): unknown => {
    if (typeof value === "string") {
      return placeholders.reduce((text, [name, actual]) => text.replaceAll(name, actual), value);
    }
    if (Array.isArray(value)) return value.map(expand);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item)]));
    }
    return value;
  };
  const workspace = await tempWorkspace(`acp-scenario-${scenario.name}-`);
  const { home, cwd } = workspace;
  for (const [file, content] of Object.entries(scenario.files)) {
    await mkdir(path.dirname(path.join(cwd, file)), { recursive: true });
    await writeFile(path.join(cwd, file), content);
  }
  // Seeded logs are moved into the scenario's workspace, as if they had been recorded there.
  for (const log of scenario.seedLogs) {
    const [header, ...rest] = (await readFile(log, "utf8")).split("\n");
    const parsed = JSON.parse(header!) as Record<string, unknown>;
    const rebased = { ...parsed, cwd, workspaceId: cwd };
    homeLogs(home).write([JSON.stringify(rebased), ...rest].join("\n"));
  }
  const server: ReplayServer | undefined = options.recording
    ? await startReplayServer(options.recording, { match: scenario.match })
    : undefined;
  const env = binaryEnv(workspace, {
    ...(server === undefined ? {} : { baseUrl: server.url }),
    extra: scenario.env,
  });

  const wire: WireEntry[] = [];
  const violations: string[] = [];
  const stderr: string[] = [];
  const exits: Array<number | string | null> = [];
  const processes = new Map<number, AgentProcess>();
  const sessions = new Map<string, string>();
  const permissions: PendingPermission[] = [];
  const prompts = new Map<string, Promise<unknown>>();
  /** Sessions whose prompt was answered and that have had no client request since. */
  const idle = new Set<string>();
  /** `client:requestId` of prompts not answered yet → their session. */
  const promptRequests = new Map<string, string>();
  let waitCursor = 0;
  let expectedError: number | undefined;

  const onEntry = (entry: WireEntry) => {
    wire.push(entry);
    if (entry.from === "cli") return;
    const { message } = entry;
    const params = message.params as Record<string, unknown> | undefined;
    const sessionId = typeof params?.sessionId === "string" ? params.sessionId : undefined;
    if (entry.from === "client" && sessionId !== undefined && "method" in message) {
      idle.delete(sessionId);
      if (message.method === "session/prompt") {
        promptRequests.set(`${entry.client}:${String(message.id)}`, sessionId);
      }
    }
    if (entry.from === "agent" && !("method" in message)) {
      // The prompt's answer, in wire order: from here on the turn is over.
      const key = `${entry.client}:${String(message.id)}`;
      const answered = promptRequests.get(key);
      if (answered !== undefined) {
        promptRequests.delete(key);
        idle.add(answered);
      }
    }
    if (
      entry.from === "agent" &&
      message.method === "session/update" &&
      sessionId !== undefined &&
      idle.has(sessionId)
    ) {
      violations.push(
        `session/update (${String((params?.update as Record<string, unknown>)?.sessionUpdate)}) for a session after its prompt was answered`,
      );
    }
  };
  const onProblem = (problem: WireProblem) => {
    violations.push(
      `agent ${problem.client} wrote a non-JSON-RPC line to stdout: ${problem.line.slice(0, 120)}`,
    );
  };

  const spawnAgent = (client: number): AgentProcess => {
    const [command, ...args] = agentCommand;
    const child = spawn(command!, [...args, "acp"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const exited = new Promise<number | string | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(signal ?? code)),
    );
    const stream = acp.ndJsonStream(
      captureClientInput(child.stdin!, client, onEntry),
      captureAgentOutput(child.stdout!, client, onEntry, onProblem),
    );
    const connection = acp
      .client({ name: "acp-snapshot" })
      .onNotification(acp.methods.client.session.update, () => undefined)
      .onRequest(
        acp.methods.client.session.requestPermission,
        ({ params }) =>
          new Promise<acp.RequestPermissionResponse>((resolve) => {
            permissions.push({ client, resolve, options: params.options });
          }),
      )
      .connect(stream);
    const agent: AgentProcess = { child, connection, stderr: () => errors, exited, killed: false };
    processes.set(client, agent);
    return agent;
  };

  const finish = async (agent: AgentProcess) => {
    agent.connection.close();
    agent.child.stdin?.end();
    if (agent.child.exitCode === null && agent.child.signalCode === null) {
      const timer = setTimeout(() => agent.child.kill("SIGKILL"), 3000);
      await agent.exited;
      clearTimeout(timer);
    }
    stderr.push(agent.stderr());
    exits.push(await agent.exited);
  };

  const sessionIdOf = (name: string): string => {
    const id = sessions.get(name);
    if (id === undefined)
      throw new Error(`scenario ${scenario.name}: no session named ${JSON.stringify(name)} yet`);
    return id;
  };

  /** Runs a request step, honouring a preceding `expectError`. */
  const request = async <T>(send: () => Promise<T>, what: string): Promise<T | undefined> => {
    const expected = expectedError;
    expectedError = undefined;
    try {
      const result = await send();
      if (expected !== undefined)
        violations.push(`${what}: expected error ${expected}, but it succeeded`);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (expected !== undefined && code === expected) return undefined;
      const stderrTail = [...processes.values()]
        .map((agent) => agent.stderr().slice(-1500))
        .join("\n---\n");
      throw new Error(
        `${what} failed: ${(error as Error).message} (code ${String(code)})${stderrTail.trim() ? `\nagent stderr:\n${stderrTail}` : ""}`,
        { cause: error },
      );
    }
  };

  const waitUntil = async (check: () => boolean, what: string, timeoutMs: number) => {
    const started = Date.now();
    while (!check()) {
      if (Date.now() - started > timeoutMs) {
        const tail = [...processes.values()]
          .map((agent) => agent.stderr().slice(-2000))
          .join("\n---\n");
        throw new Error(
          `scenario ${scenario.name}: timed out waiting for ${what}\nagent stderr:\n${tail}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  const runStep = async (step: ScenarioStep & { client: 1 | 2 }) => {
    const agent = processes.get(step.client);
    const context = () => {
      if (agent === undefined || agent.killed)
        throw new Error(`scenario ${scenario.name}: client ${step.client} has no running agent`);
      return agent.connection.agent;
    };
    switch (step.step) {
      case "initialize":
        await request(
          () =>
            context().request(acp.methods.agent.initialize, {
              protocolVersion: 1,
              clientCapabilities: scenario.clientCapabilities as acp.ClientCapabilities,
            }),
          "initialize",
        );
        return;
      case "newSession": {
        const response = await request(
          () =>
            context().request(acp.methods.agent.session.new, {
              cwd,
              mcpServers: expand(step.mcpServers) as unknown as acp.McpServer[],
            }),
          "session/new",
        );
        if (response) sessions.set(step.as, response.sessionId);
        return;
      }
      case "loadSession":
        await request(
          () =>
            context().request(acp.methods.agent.session.load, {
              sessionId: step.sessionId ?? sessionIdOf(step.session),
              cwd,
              mcpServers: expand(step.mcpServers) as unknown as acp.McpServer[],
            }),
          "session/load",
        );
        return;
      case "resumeSession":
        await request(
          () =>
            context().request(acp.methods.agent.session.resume, {
              sessionId: sessionIdOf(step.session),
              cwd,
              mcpServers: [],
            }),
          "session/resume",
        );
        return;
      case "listSessions":
        await request(
          () => context().request(acp.methods.agent.session.list, { cwd }),
          "session/list",
        );
        return;
      case "prompt": {
        const sessionId = sessionIdOf(step.session);
        const pending = request(
          () =>
            context().request(acp.methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: "text", text: step.text }],
            }),
          "session/prompt",
        );
        if (step.wait) await pending;
        else
          prompts.set(
            `${step.client}:${sessionId}`,
            pending.catch((error: unknown) => (agent?.killed ? undefined : Promise.reject(error))),
          );
        return;
      }
      case "respondPermission": {
        await waitUntil(() => permissions.length > 0, "a permission request", 15_000);
        const pending = permissions.shift()!;
        if (step.option === "cancelled") pending.resolve({ outcome: { outcome: "cancelled" } });
        else {
          const option = pending.options.find((candidate) => candidate.kind === step.option);
          if (option === undefined)
            throw new Error(
              `scenario ${scenario.name}: the agent offered no ${step.option} option`,
            );
          pending.resolve({ outcome: { outcome: "selected", optionId: option.optionId } });
        }
        return;
      }
      case "setMode":
        await request(
          () =>
            context().request(acp.methods.agent.session.setMode, {
              sessionId: sessionIdOf(step.session),
              modeId: step.modeId,
            }),
          "session/set_mode",
        );
        return;
      case "useSeeded":
        sessions.set(step.as, step.sessionId);
        return;
      case "cancel":
        await context().notify(acp.methods.agent.session.cancel, {
          sessionId: sessionIdOf(step.session),
        });
        return;
      case "kill":
        if (agent === undefined) throw new Error("kill: no agent");
        agent.killed = true;
        agent.child.kill("SIGKILL");
        await finish(agent);
        processes.delete(step.client);
        permissions.splice(0, permissions.length);
        // The killed process will never answer its prompts.
        for (const key of [...prompts.keys()])
          if (key.startsWith(`${step.client}:`)) prompts.delete(key);
        return;
      case "restart":
        if (agent !== undefined && !agent.killed) {
          await finish(agent);
        }
        spawnAgent(step.client);
        return;
      case "secondClient":
        spawnAgent(2);
        return;
      case "waitFor": {
        if (step.kind === "stop") {
          const key = [...prompts.keys()].find((candidate) =>
            candidate.startsWith(`${step.client}:`),
          );
          if (key === undefined)
            throw new Error(`scenario ${scenario.name}: waitFor stop with no pending prompt`);
          const pending = prompts.get(key)!;
          prompts.delete(key);
          await Promise.race([
            pending,
            new Promise((_, reject) =>
              setTimeout(
                () =>
                  reject(
                    new Error(
                      `scenario ${scenario.name}: timed out waiting for the prompt's answer`,
                    ),
                  ),
                step.timeoutMs,
              ),
            ),
          ]);
          return;
        }
        if (step.kind === "permission") {
          await waitUntil(() => permissions.length > 0, "a permission request", step.timeoutMs);
          return;
        }
        await waitUntil(
          () => {
            for (let index = waitCursor; index < wire.length; index += 1) {
              const entry = wire[index]!;
              if (entry.from !== "agent" || entry.message.method !== "session/update") continue;
              const update = (entry.message.params as { update?: { sessionUpdate?: string } })
                .update;
              if (update?.sessionUpdate === step.kind) {
                waitCursor = index + 1;
                return true;
              }
            }
            return false;
          },
          `a ${step.kind} update`,
          step.timeoutMs,
        );
        return;
      }
      case "expectError":
        expectedError = step.code;
        return;
      case "cli": {
        const args = step.args.map((arg) =>
          arg.replace(/\{([a-z0-9-]+)\}/gi, (_, name: string) => sessionIdOf(name)),
        );
        const [command, ...prefix] = agentCommand;
        const { exitCode, stdout } = await new Promise<{ exitCode: number | null; stdout: string }>(
          (resolve) => {
            execFile(command!, [...prefix, ...args], { cwd, env }, (error, out) => {
              resolve({
                exitCode: error ? ((error as { code?: number }).code ?? 1) : 0,
                stdout: out,
              });
            });
          },
        );
        onEntry({ from: "cli", args, exitCode, stdout });
        if (step.as !== undefined) {
          const uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
          const id =
            new RegExp(`"sessionId":"(${uuid})"`).exec(stdout)?.[1] ??
            new RegExp(uuid).exec(stdout)?.[0];
          if (id === undefined)
            throw new Error(
              `scenario ${scenario.name}: tapedeck ${args.join(" ")} printed no session id:\n${stdout}`,
            );
          sessions.set(step.as, id);
        }
        return;
      }
    }
  };

  let logs = new Map<string, string>();
  try {
    spawnAgent(1);
    for (const step of scenario.steps) await runStep(step);
    for (const [key, pending] of prompts) {
      violations.push(`prompt ${key} was never awaited (add a waitFor stop step)`);
      await pending.catch(() => undefined);
    }
    for (const permission of permissions)
      violations.push(
        `the client never answered a permission request (client ${permission.client})`,
      );
  } finally {
    for (const permission of permissions.splice(0))
      permission.resolve({ outcome: { outcome: "cancelled" } });
    for (const agent of processes.values()) await finish(agent);
    // Read through the store (its scan), never by listing the sessions folder.
    logs = await homeLogs(home).all();
    if (server !== undefined) {
      for (const failure of server.failures())
        violations.push(
          `replay server refused a request: ${JSON.stringify(failure).slice(0, 400)}`,
        );
      try {
        server.assertAllConsumed();
      } catch (error) {
        violations.push((error as Error).message);
      }
      await server.close();
    }
    if (!options.keepHome) await workspace.cleanup();
  }
  return {
    scenario: scenario.name,
    wire,
    logs,
    stderr,
    exits,
    violations,
    home,
    cwd,
    placeholders: options.placeholders ?? {},
  };
}
