/**
 * `pnpm bench` for `tapedeck mcp`: spawn → `tools/list` answer (an MCP client's cold start of the
 * server, what an agent waits for before its first turn) against spawn → exit of
 * `tapedeck --version`. Expects the bundle built (the `bench` script builds it first).
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { percentile, printTable, sample } from "@tapedeck/bench";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const binary = path.join(root, "dist/tapedeck.mjs");
const home = await mkdtemp(path.join(os.tmpdir(), "tapedeck-mcp-bench-"));
const env = { PATH: process.env.PATH ?? "", HOME: home, TAPEDECK_HOME: path.join(home, "home") };

const runs = 15;
const version = await sample(runs, () =>
  execFileSync(process.execPath, [binary, "--version"], { env }),
);
const toList: number[] = [];
for (let index = 0; index < runs; index += 1) {
  const started = performance.now();
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [binary, "mcp"], cwd: home, env }),
  );
  await client.listTools();
  toList.push(performance.now() - started);
  await client.close();
}
toList.sort((a, b) => a - b);

printTable("tapedeck mcp cold start (spawn → initialize → tools/list answer)", [
  {
    name: "p50 spawn → tools/list answer",
    value: percentile(toList, 50),
    unit: "ms",
    baseline: percentile(version, 50),
    baselineName: "tapedeck --version",
    better: "lower",
    goal: "< 300 ms",
  },
  {
    name: "p95 spawn → tools/list answer",
    value: percentile(toList, 95),
    unit: "ms",
    baseline: percentile(version, 95),
    baselineName: "tapedeck --version",
    better: "lower",
    goal: "< 300 ms",
  },
]);
await rm(home, { recursive: true, force: true });
