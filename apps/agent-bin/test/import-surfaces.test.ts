/**
 * An imported session continued on every surface (issue #14: "continued or forked with
 * Tapedeck's model, from the CLI, an editor over ACP, or the viewer"): the CLI (`run -r`), the
 * ACP agent (`session/load` + `session/prompt`) and the web server (`POST /api/agent/stream`) each
 * continue the same imported Claude Code session against llm-replay. Every model request holds
 * the conversation, a repaired pair for the call the source left unanswered, Tapedeck's system
 * prompt once, and none of the `x-` events' text (thinking, injected context, an unknown entry),
 * which search still finds. A fork of it, exported with `sessions export` (parent inlined),
 * imports back as a session of its own, which search finds and which continues and forks too.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { DEFAULT_SYSTEM_PROMPT } from "@tapedeck/agent";
import type { LlmRequest } from "@tapedeck/llm";
import { cliContext, readSseEvents, agentScript as script } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { serveWeb } from "./web-server";

const SOURCE_ID = "cccccccc-1111-4111-8111-000000000001";
/** Words only `x-` events hold: searchable, never sent to a model. */
const HIDDEN = ["okapi", "quokka", "narwhal"];

/**
 * A Claude Code transcript that stops while its call runs (imported with its last turn open): a
 * prompt, injected text, thinking, text, the call, an unknown entry.
 */
function writeTranscript(dir: string, cwd: string): void {
  const project = path.join(dir, "-work");
  mkdirSync(project, { recursive: true });
  let previous: string | null = null;
  const entries = [
    { type: "user", message: { role: "user", content: "find the zebrafish" } },
    { type: "user", isMeta: true, message: { role: "user", content: "Caveat: quokka context" } },
    assistant([{ type: "thinking", thinking: "pondering the okapi", signature: "s" }]),
    assistant([{ type: "text", text: "Looking." }]),
    assistant([{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }]),
    { type: "brand-new-type", content: "a narwhal entry" },
  ].map((entry, index) => {
    const uuid = `${SOURCE_ID}-${index}`;
    const line = {
      ...entry,
      uuid,
      parentUuid: previous,
      sessionId: SOURCE_ID,
      cwd,
      isSidechain: false,
      version: "2.1.0",
      timestamp: new Date(Date.UTC(2026, 0, 2, 10, 0, index)).toISOString(),
    };
    previous = uuid;
    return `${JSON.stringify(line)}\n`;
  });
  writeFileSync(path.join(project, `${SOURCE_ID}.jsonl`), entries.join(""));
}

function assistant(content: object[]) {
  return {
    type: "assistant",
    message: { id: `m-${JSON.stringify(content).length}`, role: "assistant", model: "m", content },
  };
}

/** What every continuation of the imported session must send. */
function expectContinuation(request: LlmRequest | undefined, prompt: string): void {
  expect(request).toBeDefined();
  const text = JSON.stringify(request);
  expect(text).toContain("find the zebrafish");
  expect(text).toContain(prompt);
  for (const word of HIDDEN) expect(text).not.toContain(word);
  const system = [
    request!.instructions ?? "",
    ...request!.input.map((item) =>
      item.type === "message" && item.role === "system" ? item.content : "",
    ),
  ].join("\n");
  expect(system.split(DEFAULT_SYSTEM_PROMPT)).toHaveLength(2);
  // The call the source left unanswered goes out with the synthetic output the resumed run's
  // repair (normalize) wrote.
  const calls = request!.input.flatMap((item) => (item.type === "function_call" ? [item] : []));
  const outputs = request!.input.flatMap((item) =>
    item.type === "function_call_output" ? [item.callId] : [],
  );
  expect(calls.map((call) => call.callId)).toContain("toolu_1");
  for (const call of calls) expect(outputs).toContain(call.callId);
}

describe("an imported session on every surface", () => {
  it("continues from the CLI, over ACP and from the viewer, sending no x- text; its fork's export imports back", async () => {
    const recording = script()
      .user("continue from the cli")
      .text("From the CLI.")
      .end()
      .user("continue from the editor")
      .text("From the editor.")
      .end()
      .user("continue from the viewer")
      .text("From the viewer.")
      .end()
      .user("fork from here")
      .text("Forked.")
      .end()
      .user("continue the copy")
      .text("Copy continued.")
      .end()
      .user("fork the copy")
      .text("Copy forked.")
      .end()
      .build();
    const {
      workspace,
      server,
      cli,
      env,
      acp: spawnAgent,
    } = await cliContext(recording, {
      // Each request is checked below (expectContinuation): the first one's latest input is the
      // repaired call's output and the prompt, which a recording of prompts alone does not hold.
      match: "off",
    });
    const source = path.join(workspace.root, "claude");
    writeTranscript(source, workspace.cwd);
    const imported = await cli(["import", "claude-code", source, "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    const sessionId = (
      JSON.parse(imported.stdout) as { files: { sessions: { sessionId: string }[] }[] }
    ).files[0]!.sessions[0]!.sessionId;
    for (const word of HIDDEN) {
      const found = await cli(["sessions", "search", "--all", word]);
      expect(found.stdout, word).toContain(sessionId);
    }

    // The CLI.
    const continued = await cli(["run", "-r", sessionId, "continue from the cli"]);
    expect(continued, continued.stderr).toMatchObject({ code: 0, stdout: "From the CLI.\n" });
    expectContinuation(server.requests()[0], "continue from the cli");

    // An editor over ACP.
    const editor = spawnAgent("allow_once");
    await editor.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    await editor.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace.cwd,
      mcpServers: [],
    });
    const answer = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "continue from the editor" }],
    });
    expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    await editor.close();
    expectContinuation(server.requests()[1], "continue from the editor");

    // The viewer.
    const { url, store } = await serveWeb({ env, workspace });
    const response = await fetch(`${url}/api/agent/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "continue from the viewer", sessionId, policy: "ask" }),
    });
    expect(response.status).toBe(200);
    const types: string[] = [];
    for await (const message of readSseEvents(response.body ?? new ReadableStream())) {
      types.push(String((JSON.parse(message.data) as { type?: unknown }).type));
    }
    expect(types.at(-1)).toBe("run_finished");
    expectContinuation(server.requests()[2], "continue from the viewer");

    // A fork, exported with its parent inlined, imports back as a session of its own.
    const forked = await cli(["run", "--fork", sessionId, "fork from here"]);
    expect(forked, forked.stderr).toMatchObject({ code: 0, stdout: "Forked.\n" });
    expectContinuation(server.requests()[3], "fork from here");
    const forkId = (await store.list()).find(
      (item) => item.header.parent?.sessionId === sessionId,
    )?.sessionId;
    expect(forkId).toBeDefined();
    const exported = await cli(["sessions", "export", forkId!]);
    expect(exported.code, exported.stderr).toBe(0);
    const file = path.join(workspace.root, "fork.jsonl");
    writeFileSync(file, exported.stdout);
    const back = await cli(["import", "tapedeck", file, "--json"]);
    expect(back.code, back.stderr).toBe(0);
    const report = JSON.parse(back.stdout) as {
      files: { skipped: unknown[]; sessions: { action: string; sessionId: string }[] }[];
    };
    expect(report.files[0]!.skipped).toEqual([]);
    expect(report.files[0]!.sessions).toMatchObject([{ action: "created" }]);
    const copy = await store.readSession(report.files[0]!.sessions[0]!.sessionId);
    const original = await store.readSession(forkId!);
    expect(copy.header.parent).toBeUndefined();
    // The parent's prefix is inlined: the copy holds every event the fork's session replays.
    expect(original.header.parent).toBeDefined();
    expect(copy.events.map(({ seq: _seq, ...event }) => event)).toEqual(
      original.events.map(({ seq: _seq, ...event }) => event),
    );
    const copyId = report.files[0]!.sessions[0]!.sessionId;
    const again = await cli(["import", "tapedeck", file]);
    expect(again.stdout).toContain("0 created, 0 appended, 0 forked, 1 unchanged");
    const found = await cli(["sessions", "search", "--all", "fork from here"]);
    expect(found.stdout).toContain(copyId);
    // The copy is continued and forked like any session.
    const more = await cli(["run", "-r", copyId, "continue the copy"]);
    expect(more, more.stderr).toMatchObject({ code: 0, stdout: "Copy continued.\n" });
    const branch = await cli(["run", "--fork", copyId, "fork the copy"]);
    expect(branch, branch.stderr).toMatchObject({ code: 0, stdout: "Copy forked.\n" });
    expect(JSON.stringify(server.requests()[4])).toContain("continue the copy");
    expect(JSON.stringify(server.requests()[5])).toContain("fork from here");
    expect(JSON.stringify(server.requests()[5])).toContain("fork the copy");
    expect(server.failures()).toEqual([]);
    server.assertAllConsumed();
    const verify = await cli(["sessions", "verify", "--all"]);
    expect(verify.stdout + verify.stderr).toContain("4 checked, 0 damaged");
  });
});
