export {
  CheckpointStore,
  checkpointRecordOf,
  LISTED_CHANGES,
  type TakenCheckpoint,
} from "./checkpoint-store";
export { CheckpointError } from "./errors";
export { type CheckpointFile, DEFAULT_MAX_SHOWN_BYTES, fileAt } from "./file-at";
export type { FsMonitor, FsMonitorOptions, MonitorAnswer } from "./fs-monitor";
export { checkpointAt, type LoggedCheckpoint, loggedCheckpoints } from "./log-checkpoints";
export {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_FILES,
  type OpenCheckpointStoreOptions,
  openCheckpointStore,
} from "./open-checkpoint-store";
export { RESTORE_TEMP_SUFFIX, type RestoreResult } from "./restore-files";
export {
  applyRestore,
  lastRewind,
  type PlanRestoreOptions,
  planRestore,
  type RestorePlan,
} from "./rewind";
export { type RewindEntry, readRewinds } from "./rewind-journal";
export { type CheckpointStorage, checkpointStorage, KEPT_REWINDS } from "./storage";
export type { TreeChange } from "./tree-diff";
export { type CheckpointWorkspace, findWorkspace } from "./workspace";
