/**
 * `@tapedeck/html-export`: a session as one self-contained HTML file. Loads React's server
 * renderer when imported, so the CLI (`sessions export --html`) and the web server (`Export
 * HTML`) import it lazily. The viewer's shared rows are on `@tapedeck/html-export/render`.
 */
export { type RenderSessionHtmlOptions, renderSessionHtml } from "./render-html";
