/** The diff of an `edit_file` or `write_file` call. */
import type { FileChange } from "./diff";
import { Visible } from "./visible";

const sign = { same: " ", added: "+", removed: "-" } as const;

/** Removed lines red with `-`, added green with `+`, the path on top. */
export function DiffView({ change }: { change: FileChange }) {
  return (
    <div className="diff" data-testid="diff">
      <div className="diff-path">
        {change.whole ? "write " : "edit "}
        <code>
          <Visible text={change.path} />
        </code>
      </div>
      <pre className="diff-lines">
        {change.lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines never reorder
          <span key={index} className={`diff-line diff-${line.kind}`}>
            {sign[line.kind]} <Visible text={line.text} />
            {"\n"}
          </span>
        ))}
      </pre>
    </div>
  );
}
