/**
 * `@tapedeck/web/export`: a session as one self-contained HTML file. Loads React (server
 * rendering) when imported, so the CLI imports it lazily, only for `sessions export --html`.
 */
export { type RenderSessionHtmlOptions, renderSessionHtml } from "./render-html";
