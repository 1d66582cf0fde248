export { DraftBuilder, isoTime } from "./draft-builder";
export { NotAFileError } from "./errors";
export { importedRunId, importedSessionId } from "./ids";
export {
  type ImportChangedOptions,
  type ImportChangedResult,
  importChanged,
  WATCHED_SOURCES,
} from "./import-changed";
export {
  type FileReport,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  importSessions,
} from "./import-run";
export {
  DEFAULT_MAX_LINE_BYTES,
  type ParsedLine,
  parseJsonDocument,
  parseJsonLine,
  readSourceBytes,
  type SourceLine,
  type SplitOptions,
  splitLines,
} from "./lines";
export {
  defaultLocations,
  type FindOptions,
  findUnits,
  type ImportEnvironment,
  type ImportUnit,
} from "./locate";
export { convertClaudeCode } from "./sources/claude-code";
export { convertCodex } from "./sources/codex";
export type { SourceFile } from "./sources/common";
export { convertGemini, geminiChatSchema } from "./sources/gemini";
export { convertGeminiCheckpoint } from "./sources/gemini-checkpoint";
export { convertOpencode, opencodeExportSchema } from "./sources/opencode";
export { convertPi } from "./sources/pi";
export { convertTapedeckExport } from "./sources/tapedeck";
export {
  type Conversion,
  type ConvertedSession,
  type ImportSource,
  importSources,
  type SkippedLine,
  type SourceKey,
  type TimedDraft,
} from "./types";
export {
  commonPrefix,
  type SessionAction,
  type SessionOutcome,
  turnBoundary,
  type WriteOptions,
  writeConverted,
} from "./write-session";
export { MAX_DECOMPRESSED_BYTES, SourceTooLargeError } from "./zstd-size";
