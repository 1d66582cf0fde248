/**
 * `@tapedeck/session/core`: the part of the package that builds no zod schema and loads no zod:
 * errors, ids, lazy schemas, the log's event type names, the invariants' state machine, the
 * replacement chain and visible text. A bundle's
 * chunks follow its imports module by module, so a command that must start fast (`tapedeck
 * sessions search`, issue #12) imports these from here, not from the package root, whose index
 * reaches the log schemas and zod.
 */
export { replacementChain } from "./analyze";
export {
  EventLogCorruptError,
  type EventLogErrorCode,
  InvalidSessionIdError,
  type LogLocation,
  SessionNotFoundError,
  TapedeckError,
  type TapedeckErrorOptions,
} from "./errors";
export { isKnownEventType, KNOWN_EVENT_TYPES, MESSAGE_ROLES } from "./event-types";
export { assertSessionId, isSessionId, layoutUuidv7 } from "./ids";
export {
  emptyInvariantState,
  type InvariantSnapshot,
  type InvariantState,
  type InvariantViolation,
  invariantError,
  invariantSnapshot,
  isInvariantViolation,
  restoreInvariantState,
  stepInvariants,
} from "./invariants";
export { lazySchema, lazySchemaObject } from "./lazy-schema";
export { StorageFaultError, toStorageFault } from "./storage-fault";
export { toVisibleText } from "./visible-text";
