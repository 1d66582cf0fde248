export {
  type CallLocation,
  formatEntry,
  RecordingError,
  ReplayExhaustedError,
  ReplayMismatchError,
  type UnconsumedCall,
  UnconsumedResponsesError,
} from "./errors";
export {
  extractCalls,
  isToolCallDelta,
  itemsFromChunks,
  type LoadRecordingOptions,
  loadRecording,
  type RecordedCall,
  type RecordedChunk,
  type RecordedOutcome,
  type Recording,
  type RecordingEvents,
} from "./recording";
export { ReplayCursor, summarize } from "./replay-cursor";
export {
  createReplayProvider,
  type ReplayProvider,
  type ReplayProviderOptions,
} from "./replay-provider";
export {
  type ReplayFailure,
  type ReplayServer,
  type ReplayServerOptions,
  startReplayServer,
} from "./replay-server";
export {
  actualView,
  compareRequest,
  type DiffEntry,
  diffItems,
  latestInput,
  type MatchMode,
  type RequestView,
  recordedView,
} from "./request-diff";
export { splitArguments, splitText } from "./scripted-materializer";
export {
  type ChunkOptions,
  type ScriptedEventDraft,
  type ScriptedLog,
  type ScriptedParent,
  type ScriptedRecordingBuilder,
  type ScriptedRecordingOptions,
  scriptedRecording,
} from "./scripted-recording";
export {
  type ScriptedResponse,
  type ScriptedServer,
  type ScriptedServerOptions,
  type ScriptedToolCall,
  startScriptedServer,
} from "./scripted-server";
export { scriptedTool, scriptedTools } from "./scripted-tools";
export type { ReplayTiming } from "./timing";
