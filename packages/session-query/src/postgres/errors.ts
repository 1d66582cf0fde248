/**
 * What goes wrong between a machine and the team index, each as one sentence a person can act on.
 * `where` is the server and database (`host:port/db`), never the password.
 */
import { TapedeckError } from "@tapedeck/session";

const connectionMarker = "tapedeck.error.IndexConnectionError";
const connectionSymbol = Symbol.for(connectionMarker);

/** Why a connection to the team index failed. */
export type IndexConnectionReason = "unreachable" | "credentials" | "database" | "lost";

const codes: Record<IndexConnectionReason, string> = {
  unreachable: "INDEX_UNREACHABLE",
  credentials: "INDEX_CREDENTIALS",
  database: "INDEX_DATABASE_MISSING",
  lost: "INDEX_CONNECTION_LOST",
};

function sentence(reason: IndexConnectionReason, where: string, detail: string): string {
  switch (reason) {
    case "unreachable":
      return `Cannot reach the team index at ${where} (${detail}): check TAPEDECK_INDEX_URL and that the server is running.`;
    case "credentials":
      return `The team index at ${where} refused the user and password in TAPEDECK_INDEX_URL (${detail}).`;
    case "database":
      return `The team index server at ${where} has no such database (${detail}): create it or fix TAPEDECK_INDEX_URL.`;
    case "lost":
      return `Lost the connection to the team index at ${where} (${detail}); the unfinished batch was rolled back and the local logs are untouched: run the command again.`;
  }
}

/** The team index server could not be reached, refused us, or went away mid-operation. */
export class IndexConnectionError extends TapedeckError {
  readonly [connectionSymbol] = true;
  readonly reason: IndexConnectionReason;
  /** `host:port/database`. */
  readonly where: string;

  constructor(reason: IndexConnectionReason, where: string, detail: string, cause?: unknown) {
    super(codes[reason], sentence(reason, where, detail), { cause });
    this.name = "IndexConnectionError";
    this.reason = reason;
    this.where = where;
  }

  static override isInstance(error: unknown): error is IndexConnectionError {
    return TapedeckError.hasMarker(error, connectionMarker);
  }
}

const schemaMarker = "tapedeck.error.IndexSchemaError";
const schemaSymbol = Symbol.for(schemaMarker);

/** The database holds a newer team index schema than this code knows. Nothing was changed. */
export class IndexSchemaError extends TapedeckError {
  readonly [schemaSymbol] = true;
  readonly where: string;
  readonly found: number;
  readonly supported: number;

  constructor(where: string, found: number, supported: number) {
    super(
      "INDEX_SCHEMA_NEWER",
      `The team index at ${where} has schema version ${found}, newer than the ${supported} this tapedeck knows: upgrade tapedeck on this machine.`,
    );
    this.name = "IndexSchemaError";
    this.where = where;
    this.found = found;
    this.supported = supported;
  }

  static override isInstance(error: unknown): error is IndexSchemaError {
    return TapedeckError.hasMarker(error, schemaMarker);
  }
}

const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
const lostCodes = new Set(["ECONNRESET", "EPIPE", "57P01", "57P02", "57P03", "08006", "08003"]);

/**
 * The {@link IndexConnectionError} a driver error stands for, or the error itself when it is
 * something else (a bug, a constraint) that must not be dressed up as a connection problem.
 */
export function describeDriverError(error: unknown, where: string): unknown {
  if (TapedeckError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "28P01" || code === "28000") {
    return new IndexConnectionError("credentials", where, message, error);
  }
  if (code === "3D000") return new IndexConnectionError("database", where, message, error);
  if (typeof code === "string" && unreachableCodes.has(code)) {
    return new IndexConnectionError("unreachable", where, message, error);
  }
  if (
    (typeof code === "string" && lostCodes.has(code)) ||
    /Connection terminated|connection.*closed|terminating connection/i.test(message)
  ) {
    return new IndexConnectionError("lost", where, message, error);
  }
  return error;
}

/** `host:port/database` of a connection URL (no user, no password). */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port === "" ? "" : `:${parsed.port}`}${parsed.pathname}`;
  } catch {
    return "(unparseable TAPEDECK_INDEX_URL)";
  }
}
