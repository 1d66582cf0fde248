/**
 * `@tapedeck/session`: everything `./core` exports (zod-free), plus the log schemas, parsing,
 * replay, `Session`, the surface and normalize.
 */

export { analyzeEventLog, type EventLogAnalysis } from "./analyze";
export { sessionCallId } from "./call-ids";
export * from "./core";
export { normalizeErrorCode } from "./error-codes";
export { eventLogErrorCodes, type LockOwner, SessionBusyError } from "./errors";
export { compileFastCheck, type FastCheck } from "./fast-check";
export { uuidv7 } from "./ids";
export { sessionLogJsonSchema } from "./json-schema";
export { type ReplayLogTextOptions, replayLogText } from "./log-text";
export { INTERRUPTED_OUTPUT, type NormalizeOptions, normalize, repairItems } from "./normalize";
export {
  parseEvent,
  parseEventLine,
  parseHeader,
  parseHeaderLine,
  parseLogLine,
} from "./parse-line";
export { appendParentPrefix, type ReplayOptions, replayEvents } from "./replay";
export {
  type ApprovalDecision,
  type ApprovalDecisionEvent,
  type ApprovalPolicy,
  type ApprovalRequestEvent,
  type AssistantChunkEvent,
  approvalDecisionEventSchema,
  approvalDecisionSchema,
  approvalPolicySchema,
  approvalRequestEventSchema,
  assistantChunkEventSchema,
  type BlobRef,
  blobRefSchema,
  type CheckpointChange,
  type CheckpointRecord,
  type CompactionEvent,
  checkpointChangeSchema,
  checkpointRecordSchema,
  compactionEventSchema,
  type ErrorEvent,
  type EventDraftOf,
  type ExtensionEvent,
  type ExtensionEventDraft,
  errorEventSchema,
  extensionEventSchema,
  type FinishReason,
  type FunctionCallEvent,
  type FunctionCallOutputEvent,
  finishReasonSchema,
  functionCallEventSchema,
  functionCallOutputEventSchema,
  type GoalSetEvent,
  goalSetEventSchema,
  type KnownEventType,
  type KnownSessionEvent,
  knownEventSchemas,
  LOG_FORMAT_VERSION,
  type MessageEvent,
  type MessageRole,
  type ModelRequestEvent,
  type ModelResponseEvent,
  messageEventSchema,
  messageRoleSchema,
  modelRequestEventSchema,
  modelResponseEventSchema,
  type ParentRef,
  PROCESS_LEFT_RUNNING_EVENT,
  PROCESS_START_EVENT,
  type ProcessLeftRunningEvent,
  type ProcessStartEvent,
  parentRefSchema,
  processLeftRunningEventSchema,
  processStartEventSchema,
  type SessionEvent,
  type SessionEventDraft,
  type SessionEventType,
  type SessionHeader,
  type SessionOriginRef,
  type SpawnedByRef,
  sessionEventSchema,
  sessionHeaderSchema,
  sessionOriginSchema,
  spawnedByRefSchema,
  surfaceEventTypes,
  type TextDelta,
  type ToolCallDelta,
  type ToolProcess,
  type TurnEndEvent,
  type TurnStartEvent,
  type TurnStatus,
  textDeltaSchema,
  toolCallDeltaSchema,
  toolProcessSchema,
  turnEndEventSchema,
  turnStartEventSchema,
  turnStatusSchema,
  type Usage,
  usageSchema,
} from "./schema";
export {
  type OpenTurn,
  type PendingApproval,
  type PendingCall,
  Session,
  type UsageTotals,
} from "./session";
export { type StorageFaultKind, storageFaultKind } from "./storage-fault";
export {
  type CompactionItem,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  isSurfaceEvent,
  type MessageItem,
  matchSurface,
  type SurfaceCases,
  type SurfaceEntry,
  type SurfaceEvent,
  type SurfaceItem,
  type SurfaceType,
  toSurfaceItem,
} from "./surface";
export {
  approvalText,
  HIDDEN_CHARACTERS_WARNING,
  hasHiddenCharacters,
  type VisibleSegment,
  type VisibleText,
  type VisibleTextOptions,
} from "./visible-text";
