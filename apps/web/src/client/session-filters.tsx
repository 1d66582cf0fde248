/** The sidebar's filter row: workspace, event type, status (sessions only), tool, since. */
import type { SessionFilters } from "./api";
import { preview } from "./text";

const eventTypes = ["message", "function_call", "function_call_output", "compaction", "error"];

/** A session status to filter by, or `""` for any. */
export type StatusFilter = NonNullable<SessionFilters["status"]> | "";

/** What the filter row edits. */
export interface FilterValues {
  workspace: string;
  status: StatusFilter;
  type: string;
  tool: string;
  /** A `YYYY-MM-DD` day, or `""`. */
  since: string;
}

interface Props {
  values: FilterValues;
  onChange(values: FilterValues): void;
  workspaces: ReadonlyArray<{ id: string; sessions: number }>;
  /** Events are searched (the status filter is for sessions only). */
  eventMode: boolean;
}

/** The filter row under the search box. */
export function FilterRow({ values, onChange, workspaces, eventMode }: Props) {
  const set = (change: Partial<FilterValues>) => onChange({ ...values, ...change });
  return (
    <div className="filters">
      <select
        aria-label="Workspace"
        value={values.workspace}
        onChange={(event) => set({ workspace: event.target.value })}
      >
        <option value="">All workspaces</option>
        {workspaces.map((item) => (
          <option key={item.id} value={item.id}>
            {preview(item.id, 40)} ({item.sessions})
          </option>
        ))}
      </select>
      <select
        aria-label="Event type"
        value={values.type}
        onChange={(event) => set({ type: event.target.value })}
      >
        <option value="">Any event</option>
        {eventTypes.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      {eventMode ? null : (
        <select
          aria-label="Status"
          value={values.status}
          onChange={(event) => set({ status: event.target.value as StatusFilter })}
        >
          <option value="">Any status</option>
          <option value="active">active</option>
          <option value="completed">completed</option>
          <option value="interrupted">interrupted</option>
          <option value="damaged">damaged</option>
        </select>
      )}
      <input
        aria-label="Tool"
        placeholder="tool"
        value={values.tool}
        onChange={(event) => set({ tool: event.target.value })}
      />
      <input
        aria-label="Since"
        type="date"
        value={values.since}
        onChange={(event) => set({ since: event.target.value })}
      />
    </div>
  );
}
