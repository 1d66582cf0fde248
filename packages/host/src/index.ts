export type { CheckpointFile } from "@tapedeck/checkpoints";
export {
  type AcpProjectionOptions,
  acpProjection,
  acpUpdatesOfLog,
  compactionUpdate,
  joinTextChunks,
  visibleStrings,
} from "./acp-projection";
export { importStateDir, isAutoImportOn, setAutoImport } from "./auto-import-setting";
export { type CheckpointFileChange, checkpointFileChange } from "./checkpoint-file";
export { createHost, type Host, type HostOptions, standardTools } from "./create-host";
export {
  AmbiguousSessionIdError,
  IndexDriverError,
  ModelNotConfiguredError,
  NoSessionToContinueError,
  SessionCwdMissingError,
  UndoMovedError,
  UnsafeSessionCwdError,
} from "./errors";
export { assertHomeWritable, homeReadOnly } from "./home-access";
export { toIndexDriverError } from "./index-driver";
export { indexPath } from "./index-path";
export {
  lastRecordedServers,
  MCP_SERVERS_EVENT,
  McpConfigError,
  type McpServerConfig,
  parseMcpServers,
  type RecordedServer,
  readMcpConfigFile,
  recordedServersDigest,
  serversFromRecord,
} from "./mcp/server-config";
export {
  coalesce,
  createMemoryIndex,
  type LogFileState,
  type SessionIndex,
  scanLogFiles,
} from "./memory-index";
export {
  checkModelId,
  FALLBACK_OPENAI_MODELS,
  listModels,
  type ModelListOptions,
} from "./models";
export { lastTurnSettings, openSession } from "./open-session";
export { createQueryHost, type QueryHost, type QueryHostOptions } from "./query-host";
export { openIndex, type SlowSyncNotice, syncedEngine, type Warn } from "./query-index";
export { RECORDED_MCP_SERVERS_APPROVAL } from "./recorded-servers-approval";
export {
  describeCheckpoints,
  HandEditsError,
  listSessionCheckpoints,
  type RewindOptions,
  type RewindReport,
  rewindSession,
  type SessionCheckpoint,
  type UndoReport,
  undoLastRewind,
} from "./rewind";
export {
  type RunCheckpointers,
  type RunCheckpointersOptions,
  runCheckpointers,
} from "./run-checkpointers";
export {
  type RunEventProjectionOptions,
  runEventProjection,
  runEventsOfLog,
} from "./run-event-projection";
export type { LoggedRunEvent, RunEvent } from "./run-events";
export {
  type McpConnector,
  type McpPlan,
  type McpSettings,
  mcpSettingsFromEnv,
  serversOfRun,
} from "./run-mcp";
export { setSessionGoal } from "./session-goal";
export {
  MIN_PREFIX,
  MIN_SHORT_ID,
  parseForkSpec,
  resolveSessionId,
  sessionIdsOnDisk,
  shortIds,
} from "./session-ids";
export { type SessionTrustLedger, sessionTrustLedger } from "./session-trust";
export { parseSlashCommand, SLASH_COMMANDS, type SlashCommand } from "./slash-commands";
export {
  type PreparedRun,
  type RunHandlers,
  type RunHost,
  type RunTarget,
  type StartRunOptions,
  startRun,
} from "./start-run";
export {
  type CompactReport,
  coldAgeMs,
  compactHome,
  DEFAULT_COLD_DAYS,
  type PruneReport,
  parseDuration,
  pruneHome,
  type StorageReport,
  type StorageRow,
  storageContributors,
  storageReport,
} from "./storage";
export type { ReclaimOptions, StorageContributor, StorageUsage } from "./storage-contributor";
export { describeIndexUrl, openTeamIndex, type TeamIndex } from "./team-index";
export { sessionTitle, titleOfPrompt } from "./titles";
export { AGENT_NAME, AGENT_VERSION } from "./version";
export {
  checkpointsContributor,
  checkpointsEnabled,
  reclaimCheckpoints,
  sessionCheckpointRef,
  workspaceCheckpointer,
  workspaceCheckpointers,
} from "./workspace-checkpoints";
