/**
 * One event appended to a 100,000-event open session → its row on screen in Chromium (issue #12,
 * goal ≤ 150 ms), against the same append → the event received on the session stream by a bare
 * HTTP client (the server's share). Real server, SQLite index, default live poll (1 s): the
 * store's watch is what makes it fast.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isolateBenchTmpdir, percentile, printTable } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { buildClient, launchChromium, serveHome } from "../test/browser-harness";
import { appendUntilOnScreen, openTurn, scrollTimelineToEnd } from "../test/live-append";
import { readSse } from "../test/sse";
import { writeSession } from "./corpus";

// Every temp folder of this run (homes, the built client, Chromium's) is inside one folder,
// removed when the bench ends, fails or is interrupted.
isolateBenchTmpdir("tapedeck-web-bench-");

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-live-bench-"));
const sessionId = writeSession(home, EVENTS, 9, new Date("2026-03-01T00:00:00Z"), {
  chinese: false,
});
const eventCount = (await createSessionStore({ home }).readSession(sessionId)).events.length;

const clientDir = await buildClient();
const served = await serveHome({ home, clientDir, sqlite: true, liveIntervalMs: 1000 });
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
let wholeSessionReads = 0;
page.on("request", (request) => {
  if (new URL(request.url()).pathname === `/api/sessions/${sessionId}`) wholeSessionReads += 1;
});
const opened = Date.now();
await page.goto(`${served.server.url}/?session=${sessionId}`);
await page.locator('[data-testid="timeline"] .row').first().waitFor({ timeout: 120_000 });
const openMs = Date.now() - opened;
await scrollTimelineToEnd(page);
const readsAtOpen = wholeSessionReads;

const turn = await openTurn(served.store, sessionId);
await appendUntilOnScreen(page, turn, "warm-up");

// The server's share: append → the event arrives on a bare client's session stream.
const response = await fetch(
  `${served.server.url}/api/sessions/${sessionId}/stream?after=${turn.writer.session.lastSeq}`,
);
if (response.body === null) throw new Error("no stream");
const stream = readSse(response.body);
if ((await stream.next()).value?.event !== "ready") throw new Error("no ready event");
const server: number[] = [];
const browserMs: number[] = [];
// Paired: each append is timed by the stream client and by the page.
for (let run = 0; run < RUNS; run++) {
  const started = Date.now();
  const page_ = appendUntilOnScreen(page, turn, `marker-${run}`);
  const message = await stream.next();
  server.push(Date.now() - started);
  if (message.value?.event !== "events") throw new Error("expected events");
  browserMs.push(await page_);
  await new Promise((resolve) => setTimeout(resolve, 150));
}
await stream.return(undefined);
await turn.writer.close();
server.sort((a, b) => a - b);
browserMs.sort((a, b) => a - b);
await browser.close();
await served.close();
rmSync(home, { recursive: true, force: true });
rmSync(clientDir, { recursive: true, force: true });
if (wholeSessionReads !== readsAtOpen) {
  throw new Error(`the page read the whole session again (${wholeSessionReads} requests)`);
}

printTable(`Live append to a ${eventCount.toLocaleString()}-event open session (${RUNS} runs)`, [
  {
    name: "Chromium: append → row on screen, median",
    value: percentile(browserMs, 50),
    unit: "ms",
    baseline: percentile(server, 50),
    baselineName: "append → event on a bare stream client",
    better: "lower",
    goal: "≤ 150 ms, no full re-read",
  },
  {
    name: "Chromium: append → row on screen, p95",
    value: percentile(browserMs, 95),
    unit: "ms",
    better: "lower",
  },
  {
    name: "requests for the whole session after opening",
    value: wholeSessionReads - readsAtOpen,
    unit: "",
    better: "lower",
  },
  { name: "open the session (navigation → first row)", value: openMs, unit: "ms", better: "lower" },
]);
