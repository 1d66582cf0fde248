// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * The session's first view drawn by the server (`src/server/first-view.tsx`), in Debian's
 * Chromium against the real server: without a script the rows are there (escaped by the page's
 * own rule), and with it the app takes that markup over in one commit: the same rows as a page
 * the client drew alone, never a frame without rows or with a row twice, and live appends still
 * show.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { writeSession } from "../bench/corpus";
import { FIRST_PAGE_ID, THEME_COOKIE } from "../src/shared/page-ids";
import { setupBrowserSuite, VIEWPORT, withoutFirstView } from "./browser-harness";
import { appendUntilOnScreen, openTurn, scrollTimelineToEnd } from "./live-append";
import { BIDI_COMMAND, IMG_TEXT, SCRIPT_TEXT, seedHome } from "./seed";

const suite = setupBrowserSuite({
  seed: () => {
    const seeded = seedHome();
    /** Longer than its first page: opens at its newest rows. */
    const long = writeSession(seeded.home, 3_000, 7, new Date("2025-12-01T00:00:00Z"), {
      chinese: false,
    });
    return { ...seeded, long };
  },
  serve: () => ({ sqlite: true }),
});

const ROWS = '[data-testid="timeline"] .row';

/** A page with scripts off: what the server's HTML alone paints. */
async function withoutScript(query: string): Promise<Page> {
  const context = await suite.browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${suite.served.server.url}/${query}`);
  return page;
}

/** A page the client draws alone (no first view from the server). */
async function clientOnly(query: string): Promise<Page> {
  const page = await suite.newPage();
  const url = `${suite.served.server.url}/${query}`;
  await withoutFirstView(page, url);
  await page.goto(url);
  return page;
}

/** Each drawn row's seq and visible text, in order. */
function rowsOf(page: Page): Promise<Array<[string | null, string]>> {
  return page
    .locator(ROWS)
    .evaluateAll((rows) =>
      rows.map((row) => [row.getAttribute("data-seq"), (row as HTMLElement).innerText]),
    );
}

/**
 * Recorded in the page from its first parsed node until stopped: per animation frame, how many
 * rows the server drew (`data-first-view`) and how many the app drew (`data-index`) are there.
 */
const FRAMES = `
window.__frames = [];
const sample = () => {
  const count = (selector) => document.querySelectorAll(selector).length;
  window.__frames.push([
    count('[data-first-view] [data-testid="timeline"] .row'),
    count('[data-testid="timeline"] [data-index] .row'),
  ]);
  if (!window.__stopFrames) requestAnimationFrame(sample);
};
requestAnimationFrame(sample);`;

describe("the server-drawn first view", () => {
  it("shows the session's rows without a script, the newest in view for a long session", async () => {
    const page = await withoutScript(`?session=${suite.seeded.long}`);
    try {
      const rows = page.locator(ROWS);
      expect(await rows.count()).toBeGreaterThan(5);
      expect(await page.getByTestId("session-title").innerText()).not.toBe("");
      expect(await page.getByTestId("load-earlier").isVisible()).toBe(true);
      // Opened at its end: the last row is on screen, the first drawn one is scrolled away.
      const view = await page.getByTestId("timeline").boundingBox();
      const last = await rows.last().boundingBox();
      expect(view).not.toBeNull();
      expect(last).not.toBeNull();
      if (view === null || last === null) return;
      expect(last.y + last.height).toBeLessThanOrEqual(view.y + view.height + 1);
      expect(last.y).toBeGreaterThanOrEqual(view.y);
    } finally {
      await page.context().close();
    }
  });

  it("escapes hostile text by the page's rule: the same rows as the client draws, no markup", async () => {
    const bare = await withoutScript(`?session=${suite.seeded.hostile}`);
    try {
      const timeline = bare.getByTestId("timeline");
      const text = await timeline.innerText();
      expect(text).toContain(SCRIPT_TEXT);
      expect(text).toContain(IMG_TEXT);
      expect(text).toContain("\\u{202E}");
      expect(text).not.toContain("\u202E");
      expect(text).not.toContain(BIDI_COMMAND);
      expect(await timeline.locator("img, script").count()).toBe(0);
      // The document holds two scripts: the app's and the page data (`</script>` in the log
      // does not close it).
      expect(await bare.locator("script").count()).toBe(2);
      const data = JSON.parse(
        (await bare.locator(`#${FIRST_PAGE_ID}`).textContent()) ?? "null",
      ) as { header: { sessionId: string }; events: Array<{ content?: unknown }> };
      expect(data.header.sessionId).toBe(suite.seeded.hostile);
      expect(JSON.stringify(data.events)).toContain(SCRIPT_TEXT.replace(/"/g, '\\"'));

      // The client, drawing the same session alone, draws the same rows with the same text.
      const client = await clientOnly(`?session=${suite.seeded.hostile}`);
      await expect.poll(async () => (await rowsOf(client)).length).toBeGreaterThan(0);
      const served = await rowsOf(bare);
      await expect.poll(() => rowsOf(client)).toEqual(served);
    } finally {
      await bare.context().close();
    }
  });

  it("is taken over by the app: no frame without rows or with a row twice, the same DOM as the client's own", async () => {
    for (const session of [suite.seeded.english, suite.seeded.long]) {
      const page = await suite.newPage();
      await page.addInitScript(FRAMES);
      await page.goto(`${suite.served.server.url}/?session=${session}`);
      // Taken over by the time the page has loaded: no server markup, the data read and gone.
      expect(await page.locator("[data-first-view]").count()).toBe(0);
      expect(await page.locator(`#${FIRST_PAGE_ID}`).count()).toBe(0);
      expect(await page.locator(".row-wrap[data-index]").count()).toBeGreaterThan(0);
      await page.waitForTimeout(300);
      const frames = (await page.evaluate("window.__stopFrames = true; window.__frames")) as Array<
        [number, number]
      >;
      // The server's rows (painted before the app is evaluated: `client/boot.ts`), then only
      // the app's: never both, never none (frames before the body has arrived have none).
      const first = frames.findIndex(([served, drawn]) => served + drawn > 0);
      expect(frames[first]?.[0]).toBeGreaterThan(0);
      expect(frames.slice(first).filter(([served, drawn]) => served + drawn === 0)).toEqual([]);
      expect(frames.filter(([served, drawn]) => served > 0 && drawn > 0)).toEqual([]);
      expect(frames.at(-1)?.[0]).toBe(0);

      // The same timeline as a page the client drew alone.
      const client = await clientOnly(`?session=${session}`);
      await expect.poll(async () => (await rowsOf(client)).length).toBeGreaterThan(0);
      if (session === suite.seeded.long) {
        await scrollTimelineToEnd(page);
        await scrollTimelineToEnd(client);
      }
      const html = (target: Page) => target.getByTestId("timeline").innerHTML();
      await expect.poll(async () => (await html(client)) === (await html(page))).toBe(true);
    }
  });

  it("is drawn in the theme chosen in the page (no light frame before a dark app)", async () => {
    const page = await suite.newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.english}`);
    const toggle = page.getByTestId("theme-toggle");
    await toggle.click();
    await toggle.click();
    await expect.poll(() => toggle.innerText()).toBe("Theme: dark");
    // A cookie the page writes reaches the browser's cookie store a moment later (it failed
    // under load reading the first click's "light").
    const theme = async () =>
      (await page.context().cookies()).find((cookie) => cookie.name === THEME_COOKIE)?.value;
    await expect.poll(theme).toBe("dark");
    const cookies = await page.context().cookies();
    const bare = await withoutScript(`?session=${suite.seeded.english}`);
    try {
      await bare.context().addCookies(cookies);
      await bare.reload();
      expect(await bare.locator("html").getAttribute("data-theme")).toBe("dark");
      expect(await bare.locator(ROWS).count()).toBeGreaterThan(0);
    } finally {
      await bare.context().close();
    }
  });

  it("still shows events appended after the first view", async () => {
    const page = await suite.newPage();
    await page.goto(`${suite.served.server.url}/?session=${suite.seeded.long}`);
    await scrollTimelineToEnd(page);
    const turn = await openTurn(suite.served.store, suite.seeded.long);
    try {
      await appendUntilOnScreen(page, turn, "after-first-view");
      await appendUntilOnScreen(page, turn, "and-another");
      const rows = await rowsOf(page);
      const seqs = rows.map(([seq]) => seq);
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      await turn.writer.close();
    }
  });
});
