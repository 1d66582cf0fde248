/**
 * `@tapedeck/html-export/render`: the pieces the viewer shares with the export file, so a session
 * looks the same in both: the timeline model (rows built from a session's events), the React rows,
 * the token chart, the visible-text renderer and the one stylesheet. Browser-safe (no Node, no
 * React server renderer); the root entry adds the file renderer.
 */

export { diffLines, type FileChange } from "./render/diff";
export { DiffView } from "./render/diff-view";
export { STYLES } from "./render/styles";
export {
  Attachments,
  localBlobSrc,
  preview,
  Row,
  type RowLinks,
  SeqLink,
} from "./render/timeline-row";
export { TokenChart } from "./render/token-chart";
export { Visible } from "./render/visible";
export { type SessionViewData, sessionView, splitChunks } from "./session-view";
export {
  eventLabel,
  formatDuration,
  known,
  modelInput,
  sessionTitle,
  type TimelineRow,
  type ToolRow,
  type TurnTokens,
  tokensPerTurn,
  truncate,
} from "./timeline/timeline";
export { buildTimeline, TimelineBuilder } from "./timeline/timeline-builder";
export { scriptJson } from "./trace-data";
