import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { TMP_GUARD_ENV, testWorkspace } from "@tapedeck/test-temp";
import { afterEach, describe, expect, it } from "vitest";
import { tapedeckBinary } from "./binary";
import { binaryEnv, NO_MODEL_SERVER } from "./model-env";
import { runCli } from "./run-cli";
import { homeLogs, jsonLines } from "./session-logs";
import { readSseEvents } from "./sse";

const saved = process.env.TAPEDECK_BINARY;
afterEach(() => {
  if (saved === undefined) delete process.env.TAPEDECK_BINARY;
  else process.env.TAPEDECK_BINARY = saved;
});

describe("binaryEnv", () => {
  it("holds only what a run needs, HOME being the temp root and no model reachable by default", () => {
    const env = binaryEnv({ root: "/tmp/r", home: "/tmp/r/home" }, { extra: { X: "1" } });
    expect(env).toEqual({
      PATH: process.env.PATH ?? "",
      HOME: "/tmp/r",
      TAPEDECK_HOME: "/tmp/r/home",
      TMPDIR: os.tmpdir(),
      TAPEDECK_MODEL: "openai:gpt-4.1-mini",
      OPENAI_API_KEY: "test-key-not-real",
      OPENAI_BASE_URL: NO_MODEL_SERVER,
      X: "1",
    });
  });
});

describe("runCli", () => {
  /** A stand-in binary that prints the temp directory it was given. */
  async function printTmpdir(
    env: (workspace: { root: string; home: string }) => Record<string, string>,
  ) {
    const workspace = await testWorkspace();
    const script = path.join(workspace.root, "print-tmpdir.mjs");
    writeFileSync(script, `import os from "node:os"; process.stdout.write(os.tmpdir());`);
    process.env.TAPEDECK_BINARY = script;
    return runCli([], { cwd: workspace.cwd, env: env(workspace) });
  }

  it("gives the binary this run's guarded TMPDIR when its whole environment names none", async () => {
    const result = await printTmpdir((workspace) => ({
      PATH: process.env.PATH ?? "",
      TAPEDECK_HOME: workspace.home,
    }));
    expect(result.code).toBe(0);
    // Not the machine's /tmp: the folder the temp guard checks and removes after the run.
    expect(result.stdout).toBe(os.tmpdir());
    if (process.env[TMP_GUARD_ENV] !== "off") {
      expect(path.basename(result.stdout)).toMatch(/^tapedeck-test-run-\d+-/);
    }
  });

  it("keeps a TMPDIR the test names itself", async () => {
    const result = await printTmpdir((workspace) =>
      binaryEnv(workspace, { extra: { TMPDIR: workspace.root } }),
    );
    expect(result.stdout).toMatch(/tapedeck-/);
    expect(result.stdout).not.toBe(os.tmpdir());
  });
});

describe("tapedeckBinary", () => {
  it("is the binary TAPEDECK_BINARY names, and says which variable to set when none is named", () => {
    process.env.TAPEDECK_BINARY = "/opt/tapedeck/tapedeck.mjs";
    expect(tapedeckBinary()).toBe("/opt/tapedeck/tapedeck.mjs");
    delete process.env.TAPEDECK_BINARY;
    expect(() => tapedeckBinary()).toThrow(/\$TAPEDECK_BINARY is not set/);
  });
});

describe("homeLogs", () => {
  it("lists and reads the logs the store wrote, byte for byte, and nothing in an empty home", async () => {
    const workspace = await testWorkspace();
    const logs = homeLogs(workspace.home);
    expect(await logs.sessionIds()).toEqual([]);
    const store = createSessionStore({ home: workspace.home });
    const { sessionId } = await store.create({
      cwd: workspace.cwd,
      seed: [{ type: "message", runId: "seed", role: "system", content: "hi" }],
    });
    expect(await logs.sessionIds()).toEqual([sessionId]);
    const text = (await logs.text(sessionId)) ?? "";
    expect(text.endsWith("\n")).toBe(true);
    expect(jsonLines(text).map((line) => line.type)).toEqual(["session", "message"]);
    expect(await logs.all()).toEqual(new Map([[sessionId, text]]));
    expect(await logs.text("0193b6e2-7c1a-7d3e-9f00-00000000000a")).toBeUndefined();
    // A fixture written into the home is found and read back as written.
    const copy = text.replaceAll(sessionId, "0193b6e2-7c1a-7d3e-9f00-00000000000b");
    expect(logs.write(copy)).toBe("0193b6e2-7c1a-7d3e-9f00-00000000000b");
    expect(await logs.text("0193b6e2-7c1a-7d3e-9f00-00000000000b")).toBe(copy);
    expect(logs.pathOf(sessionId)).toBe(store.pathOf(sessionId));
  });
});

describe("readSseEvents", () => {
  it("yields each event whole, however the bytes were cut, with its name, data and id", async () => {
    const text =
      'id: 0\nevent: run_started\ndata: {"a":1}\n\n: keep-alive\n\ndata: line 1\ndata: line 2\n\n';
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < bytes.length; index += 7)
          controller.enqueue(bytes.slice(index, index + 7));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readSseEvents(body)) events.push(event);
    expect(events).toEqual([
      { event: "run_started", data: '{"a":1}', id: "0" },
      { event: "message", data: "line 1\nline 2" },
    ]);
  });
});
