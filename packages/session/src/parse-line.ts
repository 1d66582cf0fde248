import type { z } from "zod";
import { EventLogCorruptError, type LogLocation } from "./errors";
import { compileFastCheck, type FastCheck } from "./fast-check";
import { LOG_FORMAT_VERSION, logSchemaOf, type SessionEvent, type SessionHeader } from "./schema";

/**
 * Parses one log line as JSON. This is the only place in Tapedeck that calls `JSON.parse` on
 * log content, so every failure names the file position.
 *
 * @throws EventLogCorruptError `BAD_JSON` with the line and byte offset.
 */
export function parseLogLine(text: string, location: LogLocation = {}): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EventLogCorruptError(
      "BAD_JSON",
      `line is not valid JSON (${(error as Error).message}): ${preview(text)}`,
      { ...location, cause: error },
    );
  }
}

/**
 * Validates a parsed header line.
 *
 * @throws EventLogCorruptError `BAD_HEADER` when the value is not a version-1 header (an unknown
 * version is named in the message).
 */
export function parseHeader(value: unknown, location: LogLocation = {}): SessionHeader {
  if (!isRecord(value) || value.type !== "session") {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      'the first line must be the session header ({"type":"session",…})',
      location,
    );
  }
  if (value.version !== LOG_FORMAT_VERSION) {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      `unsupported log format version ${JSON.stringify(value.version)} (this reader knows version ${LOG_FORMAT_VERSION})`,
      location,
    );
  }
  const result = logSchemaOf.header().safeParse(value);
  if (!result.success) {
    throw new EventLogCorruptError(
      "BAD_HEADER",
      `invalid header: ${describeIssues(result.error)}`,
      location,
    );
  }
  return result.data;
}

/** A type's schema and the predicate compiled from it (see fast-check.ts). */
interface EventCheck {
  schema: z.ZodType;
  fast: FastCheck | undefined;
}

/**
 * Per type, built with its schema on the first event of that type (a command that reads only
 * messages builds and compiles only `message`'s). `x-…` extension events share the key `x-`.
 */
const eventChecks = new Map<string, EventCheck>();

function eventCheckOf(key: string): EventCheck | undefined {
  const cached = eventChecks.get(key);
  if (cached !== undefined) return cached;
  const schema: z.ZodType | undefined =
    key === "x-"
      ? logSchemaOf.extension()
      : Object.hasOwn(logSchemaOf.known, key)
        ? logSchemaOf.known[key as keyof typeof logSchemaOf.known]()
        : undefined;
  if (schema === undefined) return undefined;
  // Only known keys are kept: a damaged log cannot grow the map with made-up types.
  const check = { schema, fast: compileFastCheck(schema) };
  eventChecks.set(key, check);
  return check;
}

/**
 * Validates a parsed event line against the schema of its `type`.
 *
 * @throws EventLogCorruptError `SCHEMA` for an unknown type (other than `x-…`) or a malformed event.
 */
export function parseEvent(value: unknown, location: LogLocation = {}): SessionEvent {
  const type = isRecord(value) ? value.type : undefined;
  const seq = isRecord(value) && typeof value.seq === "number" ? { seq: value.seq } : {};
  if (typeof type !== "string") {
    throw new EventLogCorruptError("SCHEMA", "event has no string `type`", { ...location, ...seq });
  }
  const check = eventCheckOf(type.startsWith("x-") ? "x-" : type);
  if (check === undefined) {
    throw new EventLogCorruptError(
      "SCHEMA",
      `unknown event type ${JSON.stringify(type)} (extension events must start with "x-")`,
      { ...location, ...seq },
    );
  }
  // Hot path: a compiled predicate accepts the object as it is (see fast-check.ts).
  if (check.fast?.(value)) return value as SessionEvent;
  const result = check.schema.safeParse(value);
  if (!result.success) {
    throw new EventLogCorruptError(
      "SCHEMA",
      `invalid ${type} event: ${describeIssues(result.error)}`,
      {
        ...location,
        ...seq,
      },
    );
  }
  return result.data as SessionEvent;
}

/** One line of a log, parsed and validated as an event. */
export function parseEventLine(text: string, location: LogLocation = {}): SessionEvent {
  return parseEvent(parseLogLine(text, location), location);
}

/** One line of a log, parsed and validated as the header. */
export function parseHeaderLine(text: string, location: LogLocation = {}): SessionHeader {
  return parseHeader(parseLogLine(text, location), location);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
