import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Io } from "../src/cli/io";
import { main } from "../src/cli/main";
import { tempWorkspace } from "./binary";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("tapedeck run interrupts", () => {
  it("a second Ctrl-C exits at once with 130, without waiting for the run", async () => {
    const workspace = await tempWorkspace();
    cleanups.push(workspace.cleanup);
    // A model server that accepts the request and never answers.
    const server = createServer(() => undefined);
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
    while (interrupt === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    interrupt();
    expect(stderr).toContain("press Ctrl-C again to quit at once");
    expect(() => interrupt?.()).toThrow("exited");
    expect(exits).toEqual([130]);
    // The first Ctrl-C alone still ends the run cleanly as cancelled.
    expect(await running).toBe(130);
  });
});
