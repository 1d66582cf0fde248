import { QueryClientProvider } from "@tanstack/react-query";
import { STYLES } from "@tapedeck/html-export/render";
import { StrictMode } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { STYLES_ID } from "../shared/page-ids";
import { initToken } from "./api";
import { App } from "./app";
import { firstPageHere, firstPageSettled, prefetchFirstPage } from "./first-page";
import { createQueryClient } from "./query-client";
import { applyTheme } from "./theme";
import { readRoute } from "./url";

/** How long the first render waits for the session's first page before drawing without it. */
const FIRST_PAGE_WAIT_MS = 150;

// Marks for the benches and the browser's performance panel (see README "Benchmarks"): every
// import above has been evaluated when this line runs.
performance.mark("tapedeck:script");
// The stylesheet is shared with the HTML export (one string, `STYLES` of @tapedeck/html-export/render). The server
// puts it in the page's head; Vite's dev server does not.
if (document.getElementById(STYLES_ID) === null) {
  const style = document.createElement("style");
  style.id = STYLES_ID;
  style.textContent = STYLES;
  document.head.append(style);
}
initToken();
prefetchFirstPage(readRoute());
applyTheme();
const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root");
const app = (
  <StrictMode>
    <QueryClientProvider client={createQueryClient()}>
      <App />
    </QueryClientProvider>
  </StrictMode>
);
if (firstPageHere()) {
  // The server drew the session's first view into #root (painted already: see boot.ts) and
  // embedded its page: the app replaces that markup now, in one commit (no frame without rows,
  // none with both).
  const reactRoot = createRoot(root);
  flushSync(() => reactRoot.render(app));
} else {
  // The shell and the session's first rows in one first render (one layout, one paint), unless
  // the page is slow to come.
  void firstPageSettled(FIRST_PAGE_WAIT_MS).then(() => createRoot(root).render(app));
}
