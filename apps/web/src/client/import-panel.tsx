/**
 * "Import": lists what the other agents' default folders hold (files, size) and imports one with
 * a progress line and a summary.
 */

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SessionViewData } from "@tapedeck/html-export/render";
import { useState } from "react";
import type { ImportEvents } from "../server/import-routes";
import { type AnswerOf, api, type ImportSource } from "./api";
import { invalidateLists } from "./invalidate";

type SourceListing = AnswerOf<typeof api.importSources>["items"][number];
type Progress = ImportEvents["progress"];
type Source = ImportSource;

const labels: Record<string, string> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  pi: "pi",
  opencode: "opencode",
};

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Reads one import's event stream: progress as it comes, then the summary's sentence. */
async function importFrom(
  source: Source,
  onProgress: (progress: Progress) => void,
): Promise<{ message: string; imported: boolean }> {
  const events = await api.importFrom(source, new AbortController().signal);
  let outcome = {
    message: `${labels[source] ?? source}: the import ended early.`,
    imported: false,
  };
  for await (const event of events) {
    if (event.event === "progress") onProgress(event.data);
    else if (event.event === "summary") {
      const summary = event.data;
      const { created, appended, forked, unchanged } = summary.counts;
      const unreadable = summary.files.filter((file) => file.error !== undefined).length;
      outcome = {
        message:
          `${labels[source] ?? source}: ${created} new, ${appended} updated, ${forked} forked, ${unchanged} unchanged session(s); ${summary.newEvents} event(s) added` +
          (summary.skipped > 0 ? `; ${summary.skipped} damaged line(s) skipped` : "") +
          (unreadable > 0 ? `; ${unreadable} file(s) unreadable` : ""),
        imported: true,
      };
    } else if (event.event === "error") {
      outcome = { message: event.data.message, imported: outcome.imported };
    }
  }
  return outcome;
}

/**
 * A button that opens the import panel. The sources are a query enabled on open
 * (`["import-sources"]`); an import is a mutation whose success invalidates the session lists.
 */
export function ImportPanel() {
  const [open, setOpen] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const client = useQueryClient();
  const listing = useQuery({
    queryKey: ["import-sources"],
    queryFn: () => api.importSources(),
    enabled: open,
  });
  const sources: SourceListing[] | null = listing.data?.items ?? null;
  const run = useMutation({
    mutationFn: (source: Source) => {
      setProgress(null);
      return importFrom(source, setProgress);
    },
    onSuccess: ({ imported }) => {
      if (imported) void invalidateLists(client);
    },
  });
  const busy = run.isPending ? (run.variables ?? null) : null;
  const message = run.data?.message ?? run.error?.message ?? listing.error?.message ?? null;

  const load = () => {
    setOpen(true);
    if (open || listing.data !== undefined) void listing.refetch();
  };

  if (!open) {
    return (
      <button type="button" className="import-open" data-testid="import-open" onClick={load}>
        Import…
      </button>
    );
  }
  return (
    <section className="import-panel" data-testid="import-panel">
      <div className="import-head">
        <strong>Import sessions from other agents</strong>{" "}
        <button type="button" className="link" onClick={() => setOpen(false)}>
          close
        </button>
      </div>
      {sources === null ? <p className="muted small">Looking in the default folders…</p> : null}
      <ul className="import-sources">
        {(sources ?? []).map((item) => (
          <li key={item.source} data-testid={`import-source-${item.source}`}>
            <span title={item.paths.join("\n")}>{labels[item.source] ?? item.source}</span>{" "}
            <span className="muted small">
              {item.files === 0 ? "nothing found" : `${item.files} file(s), ${size(item.bytes)}`}
            </span>{" "}
            <button
              type="button"
              disabled={item.files === 0 || busy !== null}
              onClick={() => run.mutate(item.source)}
            >
              {busy === item.source ? "Importing…" : "Import"}
            </button>
          </li>
        ))}
      </ul>
      {busy !== null && progress !== null ? (
        <p className="muted small" data-testid="import-progress">
          {progress.filesDone}/{progress.filesTotal} files · {size(progress.bytesDone)} of{" "}
          {size(progress.bytesTotal)}
        </p>
      ) : null}
      {message !== null ? (
        <p className="small" data-testid="import-message">
          {message}
        </p>
      ) : null}
    </section>
  );
}

/** "imported from Claude Code" for a session whose header has an `origin`. */
export function OriginNote({ origin }: { origin: SessionViewData["header"]["origin"] }) {
  if (origin === undefined) return null;
  const { tool, sessionId } = origin;
  return (
    <span
      className="origin-note"
      data-testid="session-origin"
      title={`${tool} session ${sessionId}`}
    >
      {" "}
      · imported from {labels[tool] ?? tool}
    </span>
  );
}
