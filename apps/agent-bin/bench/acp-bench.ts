/**
 * `pnpm bench` for the binary: cold start of `tapedeck acp` (spawn → `initialize` answer) against
 * a bare `node -e` spawn, and `session/load` of a 10,000-event session (time to the answer,
 * notifications per second). Builds the bundle first.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { percentile, printTable, sample } from "@tapedeck/bench";
import { eventLogBuilder } from "@tapedeck/session/testing";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const binary = path.join(root, "dist/tapedeck.mjs");
execFileSync(process.execPath, [path.join(root, "node_modules/tsup/dist/cli-default.js")], {
  cwd: root,
  stdio: "ignore",
});

const home = await mkdtemp(path.join(os.tmpdir(), "tapedeck-bench-"));
const cwd = path.join(home, "work");
await mkdir(cwd, { recursive: true });
const env = { PATH: process.env.PATH ?? "", HOME: home, TAPEDECK_HOME: path.join(home, "home") };

function connect() {
  const child = spawn(process.execPath, [binary, "acp"], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let notifications = 0;
  const connection = acp
    .client()
    .onNotification(acp.methods.client.session.update, () => {
      notifications += 1;
    })
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return {
    agent: connection.agent,
    notifications: () => notifications,
    async close() {
      connection.close();
      child.stdin.end();
      await exited;
    },
  };
}

// Cold start.
const runs = 15;
const bare = await sample(runs, () => execFileSync(process.execPath, ["-e", "0"]));
const cold = await sample(runs, async () => {
  const client = connect();
  await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
  await client.close();
});
// Time to the initialize answer only (excluding shutdown).
const toAnswer: number[] = [];
for (let index = 0; index < runs; index += 1) {
  const started = performance.now();
  const client = connect();
  await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
  toAnswer.push(performance.now() - started);
  await client.close();
}
toAnswer.sort((a, b) => a - b);

// A 10,000-event session: turns of user, call, output, assistant.
const sessionId = "0193b6e2-7c1a-7d3e-9f00-00000000beef";
const log = eventLogBuilder({ sessionId, cwd }).system("You are Tapedeck.");
while (log.events.length < 10_000) {
  log.turn().user("Please look at the file").call("read_file", { path: "src/index.ts" });
  log
    .output("export const answer = 42;\n".repeat(4))
    .assistant("The file exports answer = 42.")
    .end();
}
await mkdir(path.join(env.TAPEDECK_HOME, "sessions"), { recursive: true });
await writeFile(path.join(env.TAPEDECK_HOME, "sessions", `${sessionId}.jsonl`), log.jsonl());
const loads: { ms: number; notifications: number }[] = [];
for (let index = 0; index < 5; index += 1) {
  const client = connect();
  await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
  const started = performance.now();
  await client.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  loads.push({ ms: performance.now() - started, notifications: client.notifications() });
  await client.close();
}
loads.sort((a, b) => a.ms - b.ms);
const median = loads[Math.floor(loads.length / 2)] ?? { ms: Number.NaN, notifications: 0 };

printTable("tapedeck acp cold start (spawn → initialize answer)", [
  {
    name: "p50 spawn → initialize answer",
    value: percentile(toAnswer, 50),
    unit: "ms",
    baseline: percentile(bare, 50),
    baselineName: "node -e 0",
    better: "lower",
    goal: "< 300 ms",
  },
  {
    name: "p95 spawn → initialize answer",
    value: percentile(toAnswer, 95),
    unit: "ms",
    better: "lower",
    goal: "< 300 ms",
  },
  { name: "p50 spawn → answer → exit", value: percentile(cold, 50), unit: "ms", better: "lower" },
]);
printTable(`session/load of a ${log.events.length}-event session`, [
  { name: "median time to the load answer", value: median.ms, unit: "ms", better: "lower" },
  { name: "session/update notifications", value: median.notifications, unit: "", better: "higher" },
  {
    name: "notifications per second",
    value: (median.notifications / median.ms) * 1000,
    unit: "/s",
    better: "higher",
  },
]);
await rm(home, { recursive: true, force: true });
