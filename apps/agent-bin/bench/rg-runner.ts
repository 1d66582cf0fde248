/**
 * `rg` run by a separate process, for the in-process engine rows: the bench process only writes
 * a word to a FIFO and blocks reading the time back, so nothing forks it between two searches.
 *
 * Why: `spawnSync` forks the calling process (libuv 1.46 on Linux), and after a fork every
 * writable page of the parent is copy-on-write until written again. A search right after a
 * `spawnSync` took ≈ 60 minor page faults (against ≈ 5 after a process that something else
 * started) and ≈ 0.05 ms more (1 Dec 2026, load ≈ 6, 84 calls each, alternating: 0.574 / 0.602
 * against 0.523 / 0.547 ms). A viewer or MCP server between two questions is not forked by the
 * other programs that ran meanwhile; the row measures that, not the bench's own fork.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A process that runs `rg -F -c -- WORD folder` on request and reports its wall time in ms. */
export interface RgRunner {
  /** Runs `rg` for `word` and returns its wall time as the runner measured it (ms). */
  run(word: string): number;
  close(): void;
}

/** Starts the runner for `folder` (one fork, before anything is measured). */
export function startRgRunner(folder: string, env: NodeJS.ProcessEnv): RgRunner {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapedeck-rg-runner-"));
  const requests = path.join(dir, "requests");
  const answers = path.join(dir, "answers");
  execFileSync("mkfifo", [requests, answers]);
  const script = `
const fs = require("node:fs");
const { spawnSync } = require("node:child_process");
const [requests, answers, folder] = process.argv.slice(1);
const input = fs.openSync(requests, "r");
const output = fs.openSync(answers, "w");
const buffer = Buffer.alloc(1024);
for (;;) {
  const length = fs.readSync(input, buffer);
  if (length === 0) break;
  const word = buffer.toString("utf8", 0, length).trim();
  const started = performance.now();
  const result = spawnSync("rg", ["-F", "-c", "--", word, folder], { maxBuffer: 1 << 28 });
  const elapsed = performance.now() - started;
  if (result.status !== 0 && result.status !== 1) fs.writeSync(output, "failed\\n");
  else fs.writeSync(output, elapsed + "\\n");
}`;
  const child = spawn(process.execPath, ["-e", script, requests, answers, folder], {
    env,
    stdio: "inherit",
  });
  // Opened in the runner's order (requests, then answers): each open waits for the other end.
  const input = fs.openSync(requests, "w");
  const output = fs.openSync(answers, "r");
  const buffer = Buffer.alloc(64);
  return {
    run(word) {
      fs.writeSync(input, `${word}\n`);
      const length = fs.readSync(output, buffer);
      const answer = buffer.toString("utf8", 0, length).trim();
      const elapsed = Number(answer);
      if (!Number.isFinite(elapsed)) throw new Error(`rg -F -c ${word} failed (${answer})`);
      return elapsed;
    },
    close() {
      fs.closeSync(input);
      fs.closeSync(output);
      child.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
