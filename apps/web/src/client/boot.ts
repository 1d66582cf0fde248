/**
 * The page's entry. With the server's first view in `#root` (a session's rows, painted before
 * any script), the app (`main.tsx`: fetched and compiled meanwhile, a `modulepreload`) is
 * evaluated only after that view has been painted once: a browser that has the app cached would
 * otherwise evaluate it, ~170 ms of main thread, before its first paint. Without a first view the
 * app starts at once.
 */
import { FIRST_PAGE_ID } from "../shared/page-ids";

if (document.getElementById(FIRST_PAGE_ID) !== null) {
  // The frame that paints the first view, then the task after it.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
}
await import("./main");
