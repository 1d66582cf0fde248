/**
 * `Export HTML`: one self-contained file (inline CSS and script, no network, nothing loaded from
 * elsewhere) with the same safe rendering as the page. Used, lazily, by the web server and
 * by `tapedeck sessions export --html` (the package's root entry).
 */
import type { BlobRef, Session } from "@tapedeck/session";
import type { Lineage } from "@tapedeck/session-query";
import { renderToStaticMarkup } from "react-dom/server";
import { ExportPage } from "./export-page";
import { exportScript } from "./export-script";
import { HighlighterContext } from "./render/code-block";
import { highlightCode } from "./render/highlight";
import { readySource } from "./render/lazy";
import { Markdown } from "./render/markdown";
import { MarkdownContext } from "./render/message-text";
import { STYLES } from "./render/styles";
import { preview } from "./render/timeline-row";
import { sessionView } from "./session-view";
import { scriptJson, traceData } from "./trace-data";

/** What {@link renderSessionHtml} needs. */
export interface RenderSessionHtmlOptions {
  /** The replayed session (`store.readSession`). */
  session: Session;
  /** Ancestors and forks (`engine.traceLineage`); omitted when unknown. */
  lineage?: Lineage | null;
  /** Shown in the header; default: now. */
  generatedAt?: Date;
  /**
   * Short ids of the sessions the page names (the host's `shortIds`, unique in the home); an id
   * without one is printed whole, never cut to a prefix another session may share.
   */
  shortIds?: Readonly<Record<string, string>>;
  /**
   * The bytes of an attachment's blob (`store.readBlob`): images are embedded as data URLs, so the
   * file stays self-contained. Without it (or when it throws) an image shows its description.
   */
  readBlob?: (hash: string) => Uint8Array;
}

/** Styles only the export needs (turn sections, search hits, a fixed trace panel). */
const EXPORT_STYLES = `
body { background: var(--bg); }
.export { min-height: 100vh; display: flex; flex-direction: column; }
.export-header { position: sticky; top: 0; z-index: 2; flex-wrap: wrap; }
.export-body { align-items: start; }
.export-timeline { padding: 0 12px 40px; min-width: 0; }
.export-timeline details.turn { content-visibility: auto; contain-intrinsic-size: auto 600px; }
.export-timeline details.turn > summary { list-style: none; cursor: pointer; }
.export-timeline details.turn > summary::-webkit-details-marker { display: none; }
.export-timeline details.turn > summary .turn-title::before { content: "▾ "; }
.export-timeline details.turn:not([open]) > summary .turn-title::before { content: "▸ "; }
.export .side-panel { position: sticky; top: 90px; max-height: calc(100vh - 100px); }
.export .search { margin: 0; }
.row.search-hit { outline: 2px solid var(--mark); }
.row-actions { opacity: 1; position: static; float: right; background: none; }
`;

// Rendered once, on the server: every part is there up front (nothing is loaded later).
const highlighter = readySource(highlightCode);
const markdown = readySource(Markdown);

/** An attachment's `data:` URL from its blob's bytes; `undefined` when the blob cannot be read. */
function dataUrlOf(readBlob: (hash: string) => Uint8Array): (ref: BlobRef) => string | undefined {
  return (ref) => {
    try {
      return `data:${ref.mediaType};base64,${Buffer.from(readBlob(ref.blob)).toString("base64")}`;
    } catch {
      return undefined;
    }
  };
}

/** The session as one HTML document (a string), safe to open from disk. */
export function renderSessionHtml(options: RenderSessionHtmlOptions): string {
  const view = sessionView(options.session);
  const generatedAt = (options.generatedAt ?? new Date())
    .toISOString()
    .slice(0, 16)
    .replace("T", " ");
  const body = renderToStaticMarkup(
    <HighlighterContext.Provider value={highlighter}>
      <MarkdownContext.Provider value={markdown}>
        <ExportPage
          view={view}
          lineage={options.lineage ?? null}
          generatedAt={generatedAt}
          shortIds={options.shortIds ?? {}}
          {...(options.readBlob === undefined ? {} : { image: dataUrlOf(options.readBlob) })}
        />
      </MarkdownContext.Provider>
    </HighlighterContext.Provider>,
  );
  const data = scriptJson({ events: traceData(view.events, new Map(view.replacedBy)) });
  const firstPrompt = view.events.find(
    (event) => event.type === "message" && "role" in event && event.role === "user",
  );
  const title = preview(
    firstPrompt !== undefined && "content" in firstPrompt
      ? String(firstPrompt.content)
      : view.header.sessionId,
    80,
  );
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may be fetched: no network from an exported file, whatever the log says.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(`Tapedeck · ${title}`)}</title>`,
    `<style>${STYLES}${EXPORT_STYLES}</style>`,
    "</head>",
    "<body>",
    body,
    `<script type="application/json" id="tapedeck-data">${data}</script>`,
    // A transpiler that keeps function names (tsx does) wraps nested functions in `__name(…)`.
    `<script>var __name = function (target) { return target; };\n(${exportScript.toString()})();</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
