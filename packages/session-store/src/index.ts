export { attachmentRef } from "./blob-payloads";
export { logOffsetSchema } from "./catalog";
export { JOURNAL_FILE } from "./change-journal";
export {
  BlobReadError,
  InvalidBlobHashError,
  InvalidForkPointError,
  InvalidOffsetError,
  LogCompressionError,
  SessionHasForksError,
} from "./errors";
export { createSessionStore, defaultAgent } from "./file-store";
export { fileStats, makeDirectories, writeFileAtomically } from "./fs-util";
export { type ChangeCursor, changeCursorSchema } from "./journal-format";
export { LineEncoder } from "./line-encoder";
export { defaultHome, type JournalChanges, LogFolder } from "./log-folder";
export { type LogEntryKind, LogNotAFileError, logEntryKind } from "./log-not-a-file";
export { unsafeCwdReason } from "./session-cwd";
export type {
  AppendOptions,
  ChangeScanReason,
  ChangeSet,
  CompactOptions,
  CompactResult,
  DamagedLogEntry,
  Durability,
  HealthyLogEntry,
  ImportedHeaderOptions,
  LogEntry,
  LogOffset,
  LogReader,
  ReadEvent,
  RepairReport,
  ResumedSession,
  ScanResult,
  SessionListing,
  SessionOrigin,
  SessionStore,
  SessionStoreOptions,
  SessionWriter,
  SkippedEntry,
} from "./session-store";
export type { StoreStorageKind } from "./storage-kinds";
export { defaultWorkspaceId } from "./workspace";
