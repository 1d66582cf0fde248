/**
 * Issue #16: a 10,000-event session's HTML export opens in Chromium in < 2 s. Times the export
 * (replay + static render, what `GET /api/sessions/:id/export/html` and `tapedeck sessions export
 * --html` do) and opening the file from disk until its first timeline row, against opening the
 * same export's bare HTML with scripts off (what parsing and laying out the file alone costs).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isolateBenchTmpdir, percentile, printTable } from "@tapedeck/bench";
import { renderSessionHtml } from "@tapedeck/html-export";
import { createSessionStore } from "@tapedeck/session-store";
import { launchChromium } from "../test/browser-harness";
import { writeSession } from "./corpus";

// Every temp folder of this run (homes, the built client, Chromium's) is inside one folder,
// removed when the bench ends, fails or is interrupted.
isolateBenchTmpdir("tapedeck-web-bench-");

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-export-bench-"));
const sessionId = writeSession(home, EVENTS, 11, new Date("2026-04-01T00:00:00Z"), {
  chinese: false,
});
const store = createSessionStore({ home });
const file = path.join(home, `${sessionId}.html`);

const exports: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  const session = await store.readSession(sessionId);
  writeFileSync(file, renderSessionHtml({ session }));
  exports.push(performance.now() - started);
}
const eventCount = (await store.readSession(sessionId)).events.length;
const bytes = statSync(file).size;

const browser = await launchChromium();
const opens: number[] = [];
const bare: number[] = [];
// Paired: the export with its script, then the same file with scripts off.
for (let run = 0; run < RUNS; run++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  let started = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  await page.locator(".row").first().waitFor();
  opens.push(Date.now() - started);
  await page.close();
  const context = await browser.newContext({ javaScriptEnabled: false });
  const plain = await context.newPage();
  started = Date.now();
  await plain.goto(pathToFileURL(file).href, { waitUntil: "load" });
  bare.push(Date.now() - started);
  await context.close();
}
await browser.close();
rmSync(home, { recursive: true, force: true });
for (const values of [exports, opens, bare]) values.sort((a, b) => a - b);

printTable(
  `HTML export of a ${eventCount.toLocaleString()}-event session (${(bytes / 1e6).toFixed(1)} MB), ${RUNS} runs`,
  [
    {
      name: "Chromium: open the file → first row, median",
      value: percentile(opens, 50),
      unit: "ms",
      baseline: percentile(bare, 50),
      baselineName: "same file, scripts off, until load",
      better: "lower",
      goal: "< 2,000 ms",
    },
    { name: "same, worst", value: opens.at(-1) ?? Number.NaN, unit: "ms", better: "lower" },
    {
      name: "export (replay + render + write), median",
      value: percentile(exports, 50),
      unit: "ms",
      better: "lower",
    },
  ],
);
