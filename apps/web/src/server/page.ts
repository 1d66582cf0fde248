import { readFile } from "node:fs/promises";
import path from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { isSessionId } from "@tapedeck/session";
import type { Hono } from "hono";

/** How long a browser keeps a built asset (content-hashed name): a year, never revalidated. */
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * Serves the built client: `/assets/*` as files, every other path as `index.html` with a strict
 * Content-Security-Policy (session content is untrusted; no inline script may run).
 */
export function registerPage(app: Hono, clientDir: string, token: string | undefined): void {
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
    let html = await readFile(path.join(clientDir, "index.html"), "utf8");
    const session = c.req.query("session");
    if (token === undefined && session !== undefined && isSessionId(session)) {
      // A deep link: start fetching the session's first page while the script loads (the
      // page's own fetch of the same URL reuses the response; with `seq`, the page reaching back
      // to it). Only a validated UUID and a decimal seq go into the HTML.
      const seq = c.req.query("seq");
      const from = seq !== undefined && /^[1-9][0-9]{0,15}$/.test(seq) ? `?from=${seq}` : "";
      html = html.replace(
        "</head>",
        `<link rel="preload" href="/api/sessions/${session}/page${from}" as="fetch" crossorigin="anonymous" /></head>`,
      );
    }
    return c.html(html, 200, {
      // The shell names the current assets and a deep link's preload: always asked for again.
      "cache-control": "no-cache",
      "content-security-policy":
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
    });
  });
}
