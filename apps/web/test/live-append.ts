/**
 * One event appended to an open session, timed until its row is on screen in Chromium: shared by
 * the streaming test and `bench/live-append.ts`.
 */
import { uuidv7 } from "@tapedeck/session";
import type { SessionStore, SessionWriter } from "@tapedeck/session-store";
import type { Page } from "playwright-core";

// In-page helpers as plain script text: tsx and vite would wrap named functions in a `__name`
// call that the page does not have.
const PAGE_HELPERS = `
window.__scrollTimelineToEnd = async () => {
  const timeline = document.querySelector('[data-testid="timeline"]');
  let height = -1;
  for (let attempt = 0; attempt < 200; attempt++) {
    timeline.scrollTop = timeline.scrollHeight;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const atEnd = timeline.scrollTop + timeline.clientHeight >= timeline.scrollHeight - 2;
    if (atEnd && timeline.scrollHeight === height) return true;
    height = timeline.scrollHeight;
  }
  return false;
};
window.__rowOnScreen = (marker) => new Promise((resolve) => {
  const timeline = document.querySelector('[data-testid="timeline"]');
  let done = false;
  const check = () => {
    if (done) return;
    const view = timeline.getBoundingClientRect();
    for (const row of timeline.querySelectorAll('.row')) {
      if (!row.textContent.includes(marker)) continue;
      const box = row.getBoundingClientRect();
      if (box.bottom > view.top && box.top < view.bottom) {
        done = true;
        observer.disconnect();
        resolve(Date.now());
        return;
      }
    }
    requestAnimationFrame(check);
  };
  const observer = new MutationObserver(() => check());
  observer.observe(timeline, { childList: true, subtree: true, characterData: true });
  check();
});
`;

/** A writer holding an open turn of `sessionId`, to append assistant messages to it. */
export async function openTurn(
  store: SessionStore,
  sessionId: string,
): Promise<{ writer: SessionWriter; runId: string }> {
  const writer = await store.openWriter(sessionId);
  const runId = uuidv7();
  await writer.append([
    {
      type: "turn/start",
      runId,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
      resumed: false,
    },
    { type: "message", runId, role: "user", content: "Keep talking" },
  ]);
  return { writer, runId };
}

/** Scrolls the page's timeline to its last row (row heights settle as rows are measured). */
export async function scrollTimelineToEnd(page: Page): Promise<void> {
  await page.evaluate(PAGE_HELPERS);
  if (!(await page.evaluate("window.__scrollTimelineToEnd()"))) {
    throw new Error("the timeline did not settle at its end");
  }
}

/**
 * Appends one assistant message carrying `marker` and answers the milliseconds from just before
 * the append until a row with it is on screen (the page's clock and ours are the same clock).
 */
export async function appendUntilOnScreen(
  page: Page,
  turn: { writer: SessionWriter; runId: string },
  marker: string,
): Promise<number> {
  await page.evaluate(PAGE_HELPERS);
  await page.evaluate(`window.__onScreen = window.__rowOnScreen(${JSON.stringify(marker)}); 0`);
  const started = Date.now();
  await turn.writer.append([
    { type: "message", runId: turn.runId, role: "assistant", content: `Streamed ${marker}` },
  ]);
  const seenAt = (await page.evaluate("window.__onScreen")) as number;
  return seenAt - started;
}
