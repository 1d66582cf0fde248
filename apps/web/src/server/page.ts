import { readFile } from "node:fs/promises";
import path from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { STYLES, scriptJson } from "@tapedeck/html-export/render";
import { isSessionId } from "@tapedeck/session";
import type { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { FIRST_PAGE_ID, STYLES_ID, THEME_COOKIE } from "../shared/page-ids";
import { FIRST_VIEW_STYLES, renderFirstView } from "./first-view";
import { toHttpError } from "./http-errors";
import type { SessionPageReader } from "./session-routes";

/** How long a browser keeps a built asset (content-hashed name): a year, never revalidated. */
const ASSET_CACHE = "public, max-age=31536000, immutable";

const PAGE_HEADERS = {
  // The shell names the current assets and a session's first view: always asked for again.
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
};

/** Where the app is drawn (the built `index.html`'s empty root). */
const ROOT = '<div id="root"></div>';

/**
 * Serves the built client: `/assets/*` as files, every other path as `index.html` with a strict
 * Content-Security-Policy (session content is untrusted; no inline script may run). Without an
 * access token, `/?session=ID` comes with the session's first view drawn by the server
 * (`firstPage` reads it): its rows are painted before the page's script has run.
 */
export function registerPage(
  app: Hono,
  clientDir: string,
  token: string | undefined,
  firstPage?: SessionPageReader,
): void {
  const root = path.relative(process.cwd(), clientDir) || ".";
  // Asset names carry a hash of their content (Vite): a browser keeps them for good and, on the
  // next visit, runs them from its cache and its compiled-code cache (no request, no parse).
  app.use("/assets/*", async (c, next) => {
    await next();
    if (c.res.status === 200) c.header("cache-control", ASSET_CACHE);
  });
  app.use("/assets/*", serveStatic({ root }));
  // An asset that is not there is a 404, not the page shell under a script's name.
  app.get("/assets/*", (c) => c.notFound());
  app.get("*", async (c) => {
    const theme = getCookie(c, THEME_COOKIE);
    const shell = withStyles(
      await readFile(path.join(clientDir, "index.html"), "utf8"),
      theme === "light" || theme === "dark" ? theme : null,
    );
    const session = c.req.query("session");
    if (token !== undefined || session === undefined || !isSessionId(session)) {
      return c.html(shell, 200, PAGE_HEADERS);
    }
    // A deep link. Only a validated UUID and a decimal seq go into the HTML.
    const seq = c.req.query("seq");
    if (seq === undefined && firstPage !== undefined && shell.includes(ROOT)) {
      return c.body(streamFirstView(shell, firstPage, session), 200, {
        ...PAGE_HEADERS,
        "content-type": "text/html; charset=UTF-8",
      });
    }
    // With a seq: start fetching the session's first page while the script loads (the page's own
    // fetch of the same URL reuses the response), the page reaching back to the event.
    const from = seq !== undefined && /^[1-9][0-9]{0,15}$/.test(seq) ? `?from=${seq}` : "";
    return c.html(
      shell.replace(
        "</head>",
        `<link rel="preload" href="/api/sessions/${session}/page${from}" as="fetch" crossorigin="anonymous" /></head>`,
      ),
      200,
      PAGE_HEADERS,
    );
  });
}

/**
 * The page's stylesheet in its head (the script adds it only where it is missing: Vite's dev
 * server), and the theme chosen in the page (its cookie), so the first view is drawn in it.
 */
function withStyles(shell: string, theme: "light" | "dark" | null): string {
  const styled = shell.replace(
    "</head>",
    `<style id="${STYLES_ID}">${STYLES}${FIRST_VIEW_STYLES}</style></head>`,
  );
  return theme === null ? styled : styled.replace(/<html\b/, `<html data-theme="${theme}"`);
}

/**
 * The shell with the session's first view, streamed: the head (styles, the script to fetch) goes
 * out at once, then `#root` with the rows the page opens at and their data
 * (`<script type="application/json" id="tapedeck-first-page">`, read by the script instead of
 * asking for the page again). A page that cannot be read (a damaged log, an unknown id) sends the
 * bare shell: the script asks for it and shows why.
 */
function streamFirstView(
  shell: string,
  firstPage: SessionPageReader,
  session: string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const [head, tail = ""] = shell.split(ROOT);
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(`${head}<div id="root">`));
      let view = "";
      let data = "";
      try {
        const page = await firstPage(session);
        view = renderFirstView(page);
        data = `<script type="application/json" id="${FIRST_PAGE_ID}">${scriptJson(page)}</script>`;
      } catch (error) {
        // The script's own request answers with the error (422 with its line and offset, 404);
        // anything else is a fault of the server's, said as the API says its own.
        if (toHttpError(error).status === 500) console.error(error);
      }
      controller.enqueue(encoder.encode(`${view}</div>${data}${tail}`));
      controller.close();
    },
  });
}
