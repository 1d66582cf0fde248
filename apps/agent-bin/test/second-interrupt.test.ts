import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startReplayServer } from "@tapedeck/llm-replay";
import { agentScript, homeLogs, tempWorkspace } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import type { Io } from "../src/cli/io";
import { main } from "../src/cli/main";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("tapedeck run interrupts", () => {
  it("a second Ctrl-C exits at once with 130, without waiting for the run", async () => {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    // A model server that accepts the request and never answers.
    let requested: () => void = () => undefined;
    const modelAsked = new Promise<void>((resolve) => {
      requested = resolve;
    });
    const server = createServer(() => requested());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const port = (server.address() as AddressInfo).port;
    let interrupt: (() => void) | undefined;
    const exits: number[] = [];
    let stderr = "";
    const io: Io = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: {
        TAPEDECK_HOME: workspace.home,
        OPENAI_API_KEY: "test-key-not-real",
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      },
      cwd: workspace.cwd,
      interactive: false,
      ask: async () => "",
      onInterrupt: (handler) => {
        interrupt = handler;
      },
      exit: (code) => {
        exits.push(code);
        throw new Error("exited");
      },
    };
    const running = main(["run", "hello"], io);
    // The run is under way once the model server holds its request.
    await modelAsked;
    if (interrupt === undefined) throw new Error("run asked the model before taking Ctrl-C");
    interrupt();
    expect(stderr).toContain("press Ctrl-C again to quit at once");
    expect(() => interrupt?.()).toThrow("exited");
    expect(exits).toEqual([130]);
    // The first Ctrl-C alone still ends the run cleanly as cancelled.
    expect(await running).toBe(130);
  });

  it("Ctrl-C at an approval prompt cancels the run (turn cancelled, exit 130), not an internal error", async () => {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    const recording = agentScript()
      .user("write it")
      .toolCall("write_file", { path: "out.txt", content: "x" })
      .toolResult("Error: the run was cancelled.", { isError: true })
      .end("cancelled")
      .build();
    const server = await startReplayServer(recording.recording(), { match: "loose" });
    cleanups.push(() => server.close());
    let stderr = "";
    const io: Io = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
      env: {
        TAPEDECK_HOME: workspace.home,
        OPENAI_API_KEY: "test-key-not-real",
        OPENAI_BASE_URL: server.url,
      },
      cwd: workspace.cwd,
      interactive: true,
      // What node:readline/promises does when Ctrl-C is pressed at its question.
      ask: async () => {
        throw Object.assign(new Error("Aborted with Ctrl+C"), {
          name: "AbortError",
          code: "ABORT_ERR",
        });
      },
      onInterrupt: () => undefined,
      exit: (code) => {
        throw new Error(`exit ${code}`);
      },
    };
    expect(await main(["run", "write it"], io)).toBe(130);
    expect(stderr).toContain("Cancelling…");
    expect(stderr).not.toContain("INTERNAL");
    expect(stderr).toMatch(/session \S+ · cancelled/);
    const logs = homeLogs(workspace.home);
    const [sessionId = ""] = await logs.sessionIds();
    const events = await logs.lines(sessionId);
    expect(events.find((event) => event.type === "approval/decision")?.decision).toBe("cancelled");
    expect(events.at(-1)).toMatchObject({ type: "turn/end", status: "cancelled" });
  });
});
