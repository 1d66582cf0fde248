/**
 * The page's HTML (`src/server/page.ts`): a strict CSP, immutable assets, the stylesheet in its
 * head, and for `/?session=ID` the session's first view drawn by the server with its page's data,
 * escaped by the page's own rule (checked in Chromium by `first-view.test.ts`).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";
import { FIRST_PAGE_ID, STYLES_ID, THEME_COOKIE } from "../src/shared/page-ids";
import { IMG_TEXT, SCRIPT_TEXT, type SeededHome, seedHome } from "./seed";

const SHELL = '<html><head></head><body><div id="root"></div></body></html>';

let seeded: SeededHome;
let store: SessionStore;
let web: WebApp | undefined;

beforeEach(() => {
  seeded = seedHome();
  store = createSessionStore({ home: seeded.home });
});

afterEach(async () => {
  await web?.close();
  web = undefined;
  rmSync(seeded.home, { recursive: true, force: true });
  rmSync(seeded.work, { recursive: true, force: true });
});

/** The app over the seeded home, serving a client whose `index.html` is `shell`. */
function serve(shell = SHELL, token?: string) {
  const clientDir = path.join(seeded.home, "client");
  mkdirSync(path.join(clientDir, "assets"), { recursive: true });
  writeFileSync(path.join(clientDir, "index.html"), shell);
  writeFileSync(path.join(clientDir, "assets", "index-Ab12.js"), "export {};");
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai:gpt-4.1-mini", env: {} },
    clientDir,
    ...(token === undefined ? {} : { token }),
  });
  return web.app;
}

/** `#root`'s markup and the page data of a served page. */
function partsOf(html: string): { root: string; data: string | null } {
  const root = html.slice(html.indexOf('<div id="root">'), html.indexOf("</body>"));
  const open = `<script type="application/json" id="${FIRST_PAGE_ID}">`;
  const at = root.indexOf(open);
  if (at < 0) return { root, data: null };
  return {
    root: root.slice(0, at),
    data: root.slice(at + open.length, root.indexOf("</script>", at)),
  };
}

describe("page", () => {
  it("serves the client with a strict CSP and preloads a deep-linked event's page, never echoing other input", async () => {
    const app = serve();
    const page = await app.request(`/?session=${seeded.english}&seq=12`);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    // A deep link to an event preloads the page reaching back to it; only a decimal seq is used.
    expect(await page.text()).toContain(`href="/api/sessions/${seeded.english}/page?from=12"`);
    const odd = await app.request(`/?session=${seeded.english}&seq=${encodeURIComponent('1"x')}`);
    expect(await odd.text()).toContain(`href="/api/sessions/${seeded.english}/page"`);
    const hostile = await app.request(
      `/?session=${encodeURIComponent('"><script>alert(1)</script>')}`,
    );
    const text = await hostile.text();
    expect(text).not.toContain("alert");
    expect(partsOf(text)).toEqual({ root: '<div id="root"></div>', data: null });
    expect(text).toContain(`<style id="${STYLES_ID}">`);
  });

  it("lets the browser keep content-hashed assets for good, answers a missing one 404 and asks for the shell each time", async () => {
    const app = serve();
    const asset = await app.request("/assets/index-Ab12.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const missing = await app.request("/assets/index-gone.js");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-control")).toBeNull();
    const shell = await app.request("/");
    expect(shell.headers.get("cache-control")).toBe("no-cache");
  });

  it("draws a session's first view into the page with the page the script would ask for", async () => {
    const app = serve();
    const response = await app.request(`/?session=${seeded.english}`);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    const { root, data } = partsOf(await response.text());
    expect(root).toContain('data-testid="timeline"');
    expect(root).toContain("A tiny teapot simulator.");
    expect(root).toContain('data-first-view=""');
    const asked = await (await app.request(`/api/sessions/${seeded.english}/page`)).json();
    expect(JSON.parse(data ?? "null")).toEqual(asked);
  });

  it("escapes hostile session text: no markup of the log's in the view, no early end of the data", async () => {
    const app = serve();
    const { root, data } = partsOf(await (await app.request(`/?session=${seeded.hostile}`)).text());
    expect(root).not.toContain("<img");
    expect(root).not.toContain("<script");
    expect(root).toContain("&lt;img src=x onerror=");
    // Hidden characters as visible escapes (`toVisibleText`), never the character itself.
    expect(root).toContain("\\u{202E}");
    expect(root).not.toContain("\u202E");
    // The data holds the log's `</script>` escaped: the element ends only where the page ends it.
    expect(data).not.toContain("<");
    const page = JSON.parse(data ?? "null") as { events: Array<{ content?: unknown }> };
    expect(page.events.some((event) => String(event.content).includes(SCRIPT_TEXT))).toBe(true);
    expect(page.events.some((event) => String(event.content).includes(IMG_TEXT))).toBe(true);
  });

  it("draws nothing of a session when a token is required, or when its log is damaged", async () => {
    const guarded = serve(SHELL, "s3cret");
    const withToken = await (await guarded.request(`/?session=${seeded.english}`)).text();
    expect(withToken).not.toContain("teapot");
    expect(partsOf(withToken)).toEqual({ root: '<div id="root"></div>', data: null });
    await web?.close();

    const app = serve();
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const damaged = await app.request(`/?session=${seeded.damaged}`);
      expect(damaged.status).toBe(200);
      expect(partsOf(await damaged.text())).toEqual({ root: '<div id="root"></div>', data: null });
      // The log's damage is the page's to show (its own request: 422); not a server fault.
      expect(errors).not.toHaveBeenCalled();
      // A fault of the server's is logged, and the page still gets its shell.
      store.readSession = async () => {
        throw new Error("disk on fire");
      };
      const faulty = await app.request(`/?session=${seeded.english}`);
      expect(partsOf(await faulty.text())).toEqual({ root: '<div id="root"></div>', data: null });
      expect(errors).toHaveBeenCalledWith(new Error("disk on fire"));
    } finally {
      errors.mockRestore();
    }
  });

  it("draws the page in the theme its cookie names, and ignores any other value", async () => {
    const app = serve();
    const themed = async (cookie: string) =>
      (await app.request(`/?session=${seeded.english}`, { headers: { cookie } })).text();
    expect(await themed(`${THEME_COOKIE}=dark`)).toContain('<html data-theme="dark">');
    expect(await themed(`${THEME_COOKIE}=light`)).toContain('<html data-theme="light">');
    const odd = await themed(`${THEME_COOKIE}=${encodeURIComponent('dark"><script>')}`);
    expect(odd).toContain("<html><head>");
    expect(odd).not.toContain("<html data-theme");
  });

  it("sends a shell without a root as it is (no first view where the app is not drawn)", async () => {
    const app = serve("<html><head></head><body></body></html>");
    const text = await (await app.request(`/?session=${seeded.english}`)).text();
    expect(text).toContain(`<link rel="preload" href="/api/sessions/${seeded.english}/page"`);
    expect(text).not.toContain(FIRST_PAGE_ID);
  });
});
