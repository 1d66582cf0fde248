/**
 * Issue #10, "Done when": the CLI (`tapedeck run` under a terminal), the ACP agent (`tapedeck acp`
 * over the real ACP SDK client) and the web server (real HTTP: `POST /api/agent/stream`, its SSE
 * events, the approval route) run the same scripted conversation against llm-replay — a prompt, a
 * `write_file` call that needs approval, approved once, a final answer — and write the same log.
 *
 * What is normalised, and why it differs between runs rather than between surfaces: ids (session,
 * run, call and request ids are fresh UUIDs; each becomes `<SESSION 1>`, `<RUN 1>`, … numbered by
 * first appearance, so an id that must equal another — the first run's id and the session's —
 * still has to), times (`ts`, `createdAt`), paths (each leg has its own temp workspace and home:
 * `cwd` and `workspaceId` become `<CWD>`), durations and process ids. No field differs by surface
 * by design: the three are thin layers over the host (`startRun`), the approval decision is
 * `allow_once` on each (the CLI's "y", the ACP client's allow-once option, the web's decision),
 * and the model requests are compared byte for byte by the replay server (strict matching). This
 * test caught ACP's `session/new` writing the seed under a runId of its own where the CLI and the
 * web name it after the session (`architecture/contract.md`: seed events carry the run that created the session).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { createNormalizer } from "@tapedeck/acp-snapshot";
import type { ReplayServer } from "@tapedeck/llm-replay";
import {
  agentScript,
  type CliContext,
  cliContext,
  jsonLines,
  readSseEvents,
} from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { serveWeb } from "./web-server";

const PROMPT = "Create notes.txt saying hi.";

/** The one conversation every surface runs (strict matching: same prompt, tools, outputs). */
const conversation = () =>
  agentScript()
    .user(PROMPT)
    .toolCall("write_file", { path: "notes.txt", content: "hi\n" })
    .toolResult("Wrote 3 bytes to notes.txt.")
    .text("Created notes.txt.")
    .end()
    .build();

/** What one surface left behind: its context (home, workspace, replay server) and session. */
interface Leg {
  context: CliContext & { server: ReplayServer };
  sessionId: string;
}

async function viaCli(): Promise<Leg> {
  const context = await cliContext(conversation());
  // Under a terminal the CLI asks; "y" is "[y]es" = allow once.
  const result = await context.cli(["run", PROMPT], undefined, { terminal: { answer: "y" } });
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.stdout).toContain("Created notes.txt.");
  const [sessionId = ""] = await context.logs.sessionIds();
  return { context, sessionId };
}

async function viaAcp(): Promise<Leg> {
  const context = await cliContext(conversation());
  const client = context.acp("allow_once");
  await client.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
    cwd: context.workspace.cwd,
    mcpServers: [],
  });
  const answer = await client.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: PROMPT }],
  });
  expect(answer.stopReason, client.stderr()).toBe("end_turn");
  expect(client.permissions).toHaveLength(1);
  return { context, sessionId };
}

async function viaWeb(): Promise<Leg> {
  const context = await cliContext(conversation());
  const { env, workspace } = context;
  const http = await serveWeb({ env, workspace });
  const json = { "content-type": "application/json" };
  const response = await fetch(`${http.url}/api/agent/stream`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ input: PROMPT, policy: "ask" }),
  });
  expect(response.status).toBe(200);
  const types: string[] = [];
  let sessionId = "";
  for await (const message of readSseEvents(response.body ?? new ReadableStream())) {
    const event = JSON.parse(message.data) as Record<string, string>;
    types.push(String(event.type));
    if (event.type === "run_started") sessionId = String(event.sessionId);
    if (event.type === "approval_request") {
      const approved = await fetch(
        `${http.url}/api/agent/approvals/${event.runId}/${event.callId}`,
        { method: "POST", headers: json, body: JSON.stringify({ decision: "allow_once" }) },
      );
      expect(approved.status, await approved.clone().text()).toBe(200);
    }
  }
  expect(types).toContain("approval_request");
  expect(types.at(-1)).toBe("run_finished");
  return { context, sessionId };
}

/** The leg's log with run-to-run values as placeholders (`<SESSION 1>`, `<TS>`, `<CWD>`, …). */
async function normalisedLog({ context, sessionId }: Leg): Promise<Record<string, unknown>[]> {
  const { server, workspace, logs } = context;
  expect(server.failures()).toEqual([]);
  server.assertAllConsumed();
  expect(await readFile(path.join(workspace.cwd, "notes.txt"), "utf8")).toBe("hi\n");
  const normalizer = createNormalizer({
    paths: { "<CWD>": workspace.cwd, "<HOME>": workspace.home },
  });
  return jsonLines((await logs.text(sessionId)) ?? "").map((line) => normalizer.normalize(line));
}

describe("one conversation over the CLI, the ACP agent and the web server", () => {
  it("writes the same log on every surface (ids, times and paths normalised)", async () => {
    // One after another: the machine is shared, and each leg has its own home and replay server.
    const cli = await normalisedLog(await viaCli());
    const agent = await normalisedLog(await viaAcp());
    const web = await normalisedLog(await viaWeb());
    const show = (log: Record<string, unknown>[]) => log.map((line) => JSON.stringify(line));
    expect(show(agent)).toEqual(show(cli));
    expect(show(web)).toEqual(show(cli));
  });
});
