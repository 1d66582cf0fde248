/**
 * Opening a 10,000-event session: server time of GET /api/sessions/:id (in-process, SQLite index
 * synced) against a bare replay, and time until the timeline shows rows in Chromium.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isolateBenchTmpdir, percentile, printTable, sample } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { buildClient, launchChromium, serveHome } from "../test/browser-harness";
import { writeSession } from "./corpus";

// Every temp folder of this run (homes, the built client, Chromium's) is inside one folder,
// removed when the bench ends, fails or is interrupted.
isolateBenchTmpdir("tapedeck-web-bench-");

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-bench-"));
const sessionId = writeSession(home, EVENTS);
const store = createSessionStore({ home });
const eventCount = (await store.readSession(sessionId)).events.length;

const clientDir = await buildClient();
const served = await serveHome({ home, clientDir, sqlite: true, env: {} });
const app = served.web.app;

const replay = await sample(15, () => store.readSession(sessionId));
const server = await sample(15, async () => {
  const response = await app.request(`/api/sessions/${sessionId}`);
  await response.arrayBuffer();
});
const bytes = (await (await app.request(`/api/sessions/${sessionId}`)).arrayBuffer()).byteLength;

const browser = await launchChromium();
const paints: number[] = [];
const fetched: number[] = [];
const scripts: number[] = [];
for (let run = 0; run < 5; run++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${served.server.url}/?session=${sessionId}`);
  await page.locator('[data-testid="timeline"] .row').first().waitFor();
  // From navigation start to the first timeline row in the DOM, measured inside the page.
  // No named helpers inside evaluate: tsx would wrap them in a `__name` call the page lacks.
  const timing = await page.evaluate(() => ({
    now: performance.now(),
    session:
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).find((entry) =>
        entry.name.includes("/api/sessions/0"),
      )?.responseEnd ?? Number.NaN,
    script:
      (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).find((entry) =>
        entry.name.includes("/assets/main-"),
      )?.responseEnd ?? Number.NaN,
  }));
  paints.push(timing.now);
  fetched.push(timing.session);
  scripts.push(timing.script);
  const rows = await page.locator('[data-testid="timeline"] .row').count();
  if (rows > 200) throw new Error(`the timeline is not virtualised: ${rows} rows in the DOM`);
  await page.close();
}
paints.sort((a, b) => a - b);
fetched.sort((a, b) => a - b);
scripts.sort((a, b) => a - b);
await browser.close();
await served.close();
rmSync(home, { recursive: true, force: true });
rmSync(clientDir, { recursive: true, force: true });

printTable(
  `Open a ${eventCount.toLocaleString()}-event session (${(bytes / 1e6).toFixed(1)} MB JSON)`,
  [
    {
      name: "GET /api/sessions/:id, median",
      value: percentile(server, 50),
      unit: "ms",
      baseline: percentile(replay, 50),
      baselineName: "store.readSession alone",
      better: "lower",
    },
    {
      name: "GET /api/sessions/:id, p95",
      value: percentile(server, 95),
      unit: "ms",
      better: "lower",
    },
    {
      name: "Chromium: navigation → timeline rows, median of 5",
      value: percentile(paints, 50),
      unit: "ms",
      better: "lower",
      goal: "< 1000 ms",
    },
    {
      name: "Chromium: worst of 5",
      value: paints.at(-1) ?? Number.NaN,
      unit: "ms",
      better: "lower",
    },
    {
      name: "  of which: script loaded, median",
      value: percentile(scripts, 50),
      unit: "ms",
      better: "lower",
    },
    {
      name: "  of which: session JSON received, median",
      value: percentile(fetched, 50),
      unit: "ms",
      better: "lower",
    },
  ],
);
