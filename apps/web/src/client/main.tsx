import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { STYLES } from "../render/styles";
import { initToken } from "./api";
import { App } from "./app";
import { firstPageSettled, prefetchFirstPage } from "./first-page";
import { applyTheme } from "./theme";
import { readRoute } from "./url";

/** How long the first render waits for the session's first page before drawing without it. */
const FIRST_PAGE_WAIT_MS = 150;

// Marks for the benches and the browser's performance panel (see README "Benchmarks"): every
// import above has been evaluated when this line runs.
performance.mark("tapedeck:script");
// The stylesheet is shared with the HTML export (one string, see render/styles.ts).
const style = document.createElement("style");
style.textContent = STYLES;
document.head.append(style);
initToken();
prefetchFirstPage(readRoute());
applyTheme();
const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root");
// The shell and the session's first rows in one first render (one layout, one paint), unless
// the page is slow to come.
void firstPageSettled(FIRST_PAGE_WAIT_MS).then(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);
