/**
 * A home that cannot be created because its parent refuses children (`/proc`, `/sys`, an
 * automounter's folder answer `mkdir` with ENOENT although they exist), over the spawned binary.
 * Node's recursive `mkdir` creates such a parent again forever: every command hung at full CPU.
 */
import * as acp from "@agentclientprotocol/sdk";
import { runCli, spawnAcp, testTempDir } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";

const home = "/proc/tapedeck-no-such-folder/home";
/** The folder that cannot be made is the home's parent. */
const sentence =
  "cannot create the directory /proc/tapedeck-no-such-folder: no such file or directory.";
/** Far more than a command takes; a hang is killed at this point. */
const patienceMs = 20_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: testTempDir("home-uncreatable-"),
    TAPEDECK_HOME: home,
  };
}

describe("a home under a folder that refuses children", () => {
  it("the CLI says it cannot create the home and exits 1 (it hung; import blamed its sources)", async () => {
    const cwd = testTempDir("home-uncreatable-cwd-");
    for (const args of [
      ["sessions", "list"],
      ["sessions", "search", "word"],
      // It reported each source file "not read: no such file or directory" and exited 0.
      ["import", "pi", cwd],
      ["index"],
    ]) {
      const result = await runCli(args, { cwd, env: env(), timeoutMs: patienceMs });
      expect(result.stderr, args.join(" ")).toContain(sentence);
      expect(result.code, args.join(" ")).toBe(1);
    }
  });

  it("the ACP agent answers session/new with the same sentence (it never answered)", async () => {
    const cwd = testTempDir("home-uncreatable-cwd-");
    const agent = spawnAcp(env(), cwd);
    cleanups.push(() => agent.close());
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const created = agent.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const hung = new Promise((resolve) => setTimeout(() => resolve("no answer"), patienceMs));
    const answer = await Promise.race([
      created.then(
        () => "created",
        (error) => error,
      ),
      hung,
    ]);
    expect(answer).toMatchObject({ message: sentence });
  });
});
