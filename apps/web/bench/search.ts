/**
 * Search-as-you-type over a large corpus: each keystroke of a query is one
 * GET /api/events?q=…&prefix=last (the word being typed matches as a prefix) against the SQLite
 * index (in-process), as the search box sends it. The corpus size is
 * BENCH_EVENTS (default 500,000 events in sessions of 500 events).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isolateBenchTmpdir, percentile, printTable, sample, time } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { createApp, createSqliteIndex } from "../src/server/index";
import { writeSession } from "./corpus";

// Every temp folder of this run (homes, the built client, Chromium's) is inside one folder,
// removed when the bench ends, fails or is interrupted.
isolateBenchTmpdir("tapedeck-web-bench-");

const TOTAL = Number(process.env.BENCH_EVENTS ?? 500_000);
const PER_SESSION = 500;
const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-search-"));
const generate = await time(() => {
  for (let index = 0; index < Math.ceil(TOTAL / PER_SESSION); index++) {
    writeSession(home, PER_SESSION, index + 1, new Date(Date.UTC(2026, 0, 1) + index * 60_000));
  }
});
const store = createSessionStore({ home });
const index = createSqliteIndex(store);
const syncMs = await time(() => index.sync());
const web = createApp({ store, index, agent: { model: "openai:gpt-4.1-mini", env: {} } });

const typed = (text: string) =>
  Array.from({ length: text.length }, (_, end) => text.slice(0, end + 1));
const keystrokes = [
  ...typed("kettle whistle"),
  ...typed("thermostat cache"),
  ...typed("茶壶模拟器"),
].filter((query) => query.trim() !== "");
let hits = 0;
const search = async (query: string) => {
  const response = await web.app.request(
    `/api/events?q=${encodeURIComponent(query)}&prefix=last&limit=30`,
  );
  const page = (await response.json()) as { items: unknown[] };
  hits += page.items.length;
};
for (const query of keystrokes.slice(0, 5)) await search(query); // warm the page cache
const perKey = await sample(keystrokes.length, (run) =>
  search(keystrokes[run % keystrokes.length] ?? "k"),
);
const listing = await sample(20, async () => {
  await (await web.app.request("/api/sessions?limit=40")).json();
});
await web.close();
index.close();
rmSync(home, { recursive: true, force: true });

printTable(
  `Search as you type over ${TOTAL.toLocaleString()} events (${keystrokes.length} keystrokes, ${hits} hits)`,
  [
    { name: "generate the corpus (JSONL)", value: generate, unit: "ms", better: "lower" },
    { name: "initial SQLite sync", value: syncMs, unit: "ms", better: "lower" },
    {
      name: "GET /api/events?q=…&prefix=last per keystroke, median",
      value: percentile(perKey, 50),
      unit: "ms",
      baseline: percentile(listing, 50),
      baselineName: "GET /api/sessions first page",
      better: "lower",
      goal: "< 100 ms",
    },
    { name: "per keystroke, p95", value: percentile(perKey, 95), unit: "ms", better: "lower" },
    {
      name: "per keystroke, worst",
      value: perKey.at(-1) ?? Number.NaN,
      unit: "ms",
      better: "lower",
    },
  ],
);
