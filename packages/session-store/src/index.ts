export { createSessionStore, defaultAgent, defaultHome } from "./file-store";
export { type LogEntryKind, LogNotAFileError, logEntryKind } from "./log-not-a-file";
export type {
  Durability,
  ReadEvent,
  RepairReport,
  ResumedSession,
  SessionListing,
  SessionStore,
  SessionStoreOptions,
  SessionWriter,
} from "./session-store";
export { defaultWorkspaceId } from "./workspace";
