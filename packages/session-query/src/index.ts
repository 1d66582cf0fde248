/**
 * `@tapedeck/session-query`: questions about past sessions — list, search, read, trace — over an
 * engine with one interface and two backends. The root export is browser-safe (the in-memory
 * backend); the SQLite FTS5 backend is on `@tapedeck/session-query/sqlite`, the conformance suite
 * on `@tapedeck/session-query/testing`.
 */
export { EventNotFoundError, InvalidQueryError } from "./errors";
export { exportSession } from "./export";
export { type FtsQueryOptions, ftsPhrase, toFtsQuery } from "./fts-query";
export { settleActiveSessions } from "./live-status";
export { createMemoryQueryEngine, type MemoryQueryEngine } from "./memory/memory-engine";
export {
  QUERY_ACTION_DESCRIPTIONS,
  QUERY_ACTIONS,
  QUERY_TOOL_LIMIT,
  type QueryAction,
  type QueryAnswer,
  type QueryArguments,
  queryActionSchema,
  queryFields,
  runQueryAction,
} from "./query-actions";
export type {
  CitationKind,
  CitingEvent,
  EventHit,
  EventOrder,
  EventSearchQuery,
  EventTrace,
  HighlightMarkers,
  Lineage,
  LineageNode,
  ListSessionsOptions,
  Page,
  PrefixMatching,
  QueryScope,
  SessionOrder,
  SessionQueryEngine,
  SessionSearchQuery,
  SessionStatus,
  SessionSummary,
  SourceEvent,
  SpawnRef,
  SubAgentLink,
  TracedEvent,
  UsageSummary,
} from "./query-engine";
export { citationLabel, SESSION_STATUSES } from "./query-engine";
export { DEFAULT_LIMIT, MAX_LIMIT } from "./query-schema";
export { snippet } from "./snippet";
export { IMPORTED_RUN_PREFIX, promptOf, TITLE_LENGTH, titleOf } from "./summary";
export {
  eventText,
  MIN_PREFIX_LENGTH,
  type QueryWord,
  queryWords,
  spaceCjk,
} from "./text";
export {
  createSessionQueryTool,
  invalidArgumentsText,
  type SessionQueryTool,
  type SessionQueryToolOptions,
} from "./tool";
