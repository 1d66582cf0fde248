import { execFile } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import type { ScenarioStep } from "./scenario";
import type { AgentProcess, ScenarioRun } from "./scenario-run";

/** A validated step with the client it acts through. */
export type ClientStep = ScenarioStep & { client: 1 | 2 };
type StepOf<K extends ClientStep["step"]> = Extract<ClientStep, { step: K }>;

/** What a step acts on: the run's shared state and the agent of the step's client, if any. */
interface StepContext {
  run: ScenarioRun;
  agent: AgentProcess | undefined;
}

/** The ACP connection of the step's client; throws when that client has no running agent. */
function agentOf({ run, agent }: StepContext, client: 1 | 2) {
  if (agent === undefined || agent.killed)
    throw new Error(`scenario ${run.scenario.name}: client ${client} has no running agent`);
  return agent.connection.agent;
}

/** Runs one scenario step against the run's agents. */
export async function runStep(run: ScenarioRun, step: ClientStep): Promise<void> {
  const context: StepContext = { run, agent: run.processes.get(step.client) };
  switch (step.step) {
    case "initialize":
    case "newSession":
    case "loadSession":
    case "resumeSession":
    case "listSessions":
    case "setMode":
      return sessionRequestStep(context, step);
    case "prompt":
      return promptStep(context, step);
    case "respondPermission":
      return respondPermissionStep(context, step);
    case "useSeeded":
      run.sessions.set(step.as, step.sessionId);
      return;
    case "cancel":
      await agentOf(context, step.client).notify(acp.methods.agent.session.cancel, {
        sessionId: run.sessionIdOf(step.session),
      });
      return;
    case "kill":
      return killStep(context, step);
    case "restart":
      if (context.agent !== undefined && !context.agent.killed) {
        await run.finish(context.agent);
      }
      run.spawnAgent(step.client);
      return;
    case "secondClient":
      run.spawnAgent(2);
      return;
    case "waitFor":
      return waitForStep(context, step);
    case "expectError":
      run.expectedError = step.code;
      return;
    case "cli":
      return cliStep(run, step);
  }
}

/** The steps that send one ACP request and keep at most the session id it answers. */
async function sessionRequestStep(
  context: StepContext,
  step: StepOf<
    "initialize" | "newSession" | "loadSession" | "resumeSession" | "listSessions" | "setMode"
  >,
): Promise<void> {
  const { run } = context;
  const { cwd } = run;
  const agent = () => agentOf(context, step.client);
  switch (step.step) {
    case "initialize":
      await run.request(
        () =>
          agent().request(acp.methods.agent.initialize, {
            protocolVersion: 1,
            clientCapabilities: run.scenario.clientCapabilities as acp.ClientCapabilities,
          }),
        "initialize",
      );
      return;
    case "newSession": {
      const response = await run.request(
        () =>
          agent().request(acp.methods.agent.session.new, {
            cwd,
            mcpServers: run.expand(step.mcpServers) as unknown as acp.McpServer[],
          }),
        "session/new",
      );
      if (response) run.sessions.set(step.as, response.sessionId);
      return;
    }
    case "loadSession":
      await run.request(
        () =>
          agent().request(acp.methods.agent.session.load, {
            sessionId: step.sessionId ?? run.sessionIdOf(step.session),
            cwd,
            mcpServers: run.expand(step.mcpServers) as unknown as acp.McpServer[],
          }),
        "session/load",
      );
      return;
    case "resumeSession":
      await run.request(
        () =>
          agent().request(acp.methods.agent.session.resume, {
            sessionId: run.sessionIdOf(step.session),
            cwd,
            mcpServers: [],
          }),
        "session/resume",
      );
      return;
    case "listSessions":
      await run.request(
        () => agent().request(acp.methods.agent.session.list, { cwd }),
        "session/list",
      );
      return;
    case "setMode":
      await run.request(
        () =>
          agent().request(acp.methods.agent.session.setMode, {
            sessionId: run.sessionIdOf(step.session),
            modeId: step.modeId,
          }),
        "session/set_mode",
      );
      return;
  }
}

/** Sends `session/prompt`; awaits it, or (with `wait: false`) keeps it for a `waitFor stop`. */
async function promptStep(context: StepContext, step: StepOf<"prompt">): Promise<void> {
  const { run, agent } = context;
  const sessionId = run.sessionIdOf(step.session);
  const pending = run.request(
    () =>
      agentOf(context, step.client).request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: step.text }],
      }),
    "session/prompt",
  );
  if (step.wait) await pending;
  else
    run.prompts.set(
      `${step.client}:${sessionId}`,
      pending.catch((error: unknown) => (agent?.killed ? undefined : Promise.reject(error))),
    );
}

/** Answers the oldest pending permission request with the step's option kind (or cancels it). */
async function respondPermissionStep(
  { run }: StepContext,
  step: StepOf<"respondPermission">,
): Promise<void> {
  await run.waitUntil(() => run.permissions.length > 0, "a permission request", 15_000);
  const pending = run.permissions.shift()!;
  if (step.option === "cancelled") pending.resolve({ outcome: { outcome: "cancelled" } });
  else {
    const option = pending.options.find((candidate) => candidate.kind === step.option);
    if (option === undefined)
      throw new Error(`scenario ${run.scenario.name}: the agent offered no ${step.option} option`);
    pending.resolve({ outcome: { outcome: "selected", optionId: option.optionId } });
  }
}

/** SIGKILLs the client's agent and forgets what it will never answer. */
async function killStep({ run, agent }: StepContext, step: StepOf<"kill">): Promise<void> {
  if (agent === undefined) throw new Error("kill: no agent");
  agent.killed = true;
  agent.child.kill("SIGKILL");
  await run.finish(agent);
  run.processes.delete(step.client);
  run.permissions.splice(0, run.permissions.length);
  // The killed process will never answer its prompts.
  for (const key of [...run.prompts.keys()])
    if (key.startsWith(`${step.client}:`)) run.prompts.delete(key);
}

/** Waits for a pending prompt's answer, a permission request, or a `session/update` kind. */
async function waitForStep({ run }: StepContext, step: StepOf<"waitFor">): Promise<void> {
  if (step.kind === "stop") {
    const key = [...run.prompts.keys()].find((candidate) =>
      candidate.startsWith(`${step.client}:`),
    );
    if (key === undefined)
      throw new Error(`scenario ${run.scenario.name}: waitFor stop with no pending prompt`);
    const pending = run.prompts.get(key)!;
    run.prompts.delete(key);
    await Promise.race([
      pending,
      new Promise((_, reject) =>
        setTimeout(
          () =>
            reject(
              new Error(`scenario ${run.scenario.name}: timed out waiting for the prompt's answer`),
            ),
          step.timeoutMs,
        ),
      ),
    ]);
    return;
  }
  if (step.kind === "permission") {
    await run.waitUntil(() => run.permissions.length > 0, "a permission request", step.timeoutMs);
    return;
  }
  await run.waitUntil(
    () => {
      for (let index = run.waitCursor; index < run.wire.length; index += 1) {
        const entry = run.wire[index]!;
        if (entry.from !== "agent" || entry.message.method !== "session/update") continue;
        const update = (entry.message.params as { update?: { sessionUpdate?: string } }).update;
        if (update?.sessionUpdate === step.kind) {
          run.waitCursor = index + 1;
          return true;
        }
      }
      return false;
    },
    `a ${step.kind} update`,
    step.timeoutMs,
  );
}

/** Runs the tapedeck CLI with `{name}` replaced by session ids; `as` names the id it prints. */
async function cliStep(run: ScenarioRun, step: StepOf<"cli">): Promise<void> {
  const args = step.args.map((arg) =>
    arg.replace(/\{([a-z0-9-]+)\}/gi, (_, name: string) => run.sessionIdOf(name)),
  );
  const [command, ...prefix] = run.agentCommand;
  const { exitCode, stdout } = await new Promise<{ exitCode: number | null; stdout: string }>(
    (resolve) => {
      execFile(command!, [...prefix, ...args], { cwd: run.cwd, env: run.env }, (error, out) => {
        resolve({
          exitCode: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout: out,
        });
      });
    },
  );
  run.onEntry({ from: "cli", args, exitCode, stdout });
  if (step.as !== undefined) {
    const uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
    const id =
      new RegExp(`"sessionId":"(${uuid})"`).exec(stdout)?.[1] ?? new RegExp(uuid).exec(stdout)?.[0];
    if (id === undefined)
      throw new Error(
        `scenario ${run.scenario.name}: tapedeck ${args.join(" ")} printed no session id:\n${stdout}`,
      );
    run.sessions.set(step.as, id);
  }
}
