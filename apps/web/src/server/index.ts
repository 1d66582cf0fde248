/**
 * `@tapedeck/web` server: the Hono app behind the session viewer and agent console.
 * `createApp` builds it (tests call `app.request(…)` in-process); `startServer` listens.
 */

export {
  createMemoryIndex,
  type LogFileState,
  type SessionIndex,
  scanLogFiles,
} from "@tapedeck/host";
export { sessionView } from "@tapedeck/html-export/render";
export {
  type ActiveRunInfo,
  DEFAULT_RUN_IDLE_MS,
  type ModelStatus,
  type PendingApprovalInfo,
  type RunsHost,
  ServerRuns,
} from "./agent-runs";
export { type AgentModelOptions, type AppOptions, createApp, type WebApp } from "./app";
export { DEMO_WORKSPACE, type DemoReport, loadDemoSessions } from "./demo";
export { DEMO_FIXTURES, demoLogsFromFixtures } from "./demo-fixtures";
export { type ErrorBody, toHttpError } from "./http-errors";
export { type LiveChange, LiveWatcher } from "./live";
export { type RunningServer, type ServeOptions, startServer } from "./serve";
export { HIGHLIGHT } from "./session-routes";
export { createSqliteIndex, sqliteIndexPath } from "./sqlite-index";
export { createTeamIndex } from "./team-index";
