/**
 * "Storage": the home's bytes by kind and what `tapedeck storage compact` would save, the same
 * figures the CLI prints. A query (`["storage"]`) enabled once the button is pressed; each later
 * press asks again.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type AnswerOf, api } from "./api";

type Report = AnswerOf<typeof api.storage>;

function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

/** A button that opens the storage figures. */
export function StoragePanel() {
  const [open, setOpen] = useState(false);
  const query = useQuery({ queryKey: ["storage"], queryFn: () => api.storage(), enabled: open });
  const report: Report | null = query.data ?? null;
  const message = query.error?.message ?? null;

  const load = () => {
    if (open) void query.refetch();
    else setOpen(true);
  };

  return (
    <section className="storage-panel" data-testid="storage-panel">
      <button type="button" onClick={load}>
        Storage
      </button>
      {message !== null && <p role="alert">{message}</p>}
      {report !== null && (
        <table>
          <tbody>
            {report.rows.map((row) => (
              <tr key={row.kind}>
                <th scope="row">{row.kind}</th>
                <td>{size(row.bytes)}</td>
                <td>{row.files} files</td>
              </tr>
            ))}
            <tr>
              <th scope="row">total</th>
              <td>{size(report.bytes)}</td>
              <td />
            </tr>
          </tbody>
          <caption>
            `tapedeck storage compact` would save {size(report.compactWouldSave)} (
            {report.coldSessions} cold session{report.coldSessions === 1 ? "" : "s"})
          </caption>
        </table>
      )}
    </section>
  );
}
