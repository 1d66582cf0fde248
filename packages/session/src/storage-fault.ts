/**
 * Faults of the disk under the Tapedeck home, said in one sentence that names the cause and the
 * path: "disk full (ENOSPC) writing /home/me/.tapedeck/sessions/….jsonl". Browser-safe: it reads
 * only the `code`/`path` fields Node and better-sqlite3 put on their errors.
 */
import { TapedeckError, type TapedeckErrorOptions } from "./errors";

/** What went wrong with the disk. */
export type StorageFaultKind = "disk-full" | "quota" | "io" | "read-only";

const storageFaultMarker = "tapedeck.error.StorageFaultError";
const storageFaultSymbol = Symbol.for(storageFaultMarker);

const SENTENCE: Record<Exclude<StorageFaultKind, "read-only">, string> = {
  "disk-full": "disk full",
  quota: "disk quota exceeded",
  io: "input/output error",
};

/**
 * The disk refused a write: full (`ENOSPC`, `SQLITE_FULL`, `SQLITE_IOERR_SHMSIZE`), over quota (`EDQUOT`), failing (`EIO`,
 * `SQLITE_IOERR…`) or read-only (`EROFS`, a home the user may not write). The message is the one
 * sentence every surface shows (CLI, ACP, viewer).
 */
export class StorageFaultError extends TapedeckError {
  readonly [storageFaultSymbol] = true;
  readonly kind: StorageFaultKind;
  /** The file written (or, for `read-only`, the Tapedeck home). */
  readonly path: string;
  /** The system or SQLite code (`ENOSPC`, `EDQUOT`, `EIO`, `EROFS`, `SQLITE_FULL`…). */
  readonly systemCode: string;

  constructor(
    fields: { kind: StorageFaultKind; path: string; systemCode: string },
    options: TapedeckErrorOptions = {},
  ) {
    super(
      fields.kind === "read-only" ? "HOME_READ_ONLY" : "STORAGE_FAULT",
      fields.kind === "read-only"
        ? `the Tapedeck home ${fields.path} is read-only`
        : `${SENTENCE[fields.kind]} (${fields.systemCode}) writing ${fields.path}`,
      options,
    );
    this.name = "StorageFaultError";
    this.kind = fields.kind;
    this.path = fields.path;
    this.systemCode = fields.systemCode;
  }

  static override isInstance(error: unknown): error is StorageFaultError {
    return TapedeckError.hasMarker(error, storageFaultMarker);
  }
}

/** The kind of a system (`ENOSPC`…) or SQLite (`SQLITE_FULL`…) error code; `undefined` for others. */
export function storageFaultKind(code: unknown): StorageFaultKind | undefined {
  if (typeof code !== "string") return undefined;
  // SQLite cannot grow the WAL index's shared memory (`index.sqlite-shm`): on a full disk it says
  // only IOERR_SHMSIZE (its documentation: "may indicate that the underlying filesystem volume is
  // out of space"), and a user must be told to free space, not that the disk is failing.
  if (code === "ENOSPC" || code === "SQLITE_FULL" || code === "SQLITE_IOERR_SHMSIZE") {
    return "disk-full";
  }
  if (code === "EDQUOT") return "quota";
  if (code === "EIO" || code.startsWith("SQLITE_IOERR")) return "io";
  if (code === "EROFS" || code.startsWith("SQLITE_READONLY")) return "read-only";
  return undefined;
}

/**
 * `error` as a {@link StorageFaultError} when it is a disk fault (kept as is when it already is
 * one), else `undefined`. `path` is the file being written when the error does not name one;
 * `home` is named instead of the file for a read-only fault.
 */
export function toStorageFault(
  error: unknown,
  where: { path: string; home?: string },
): StorageFaultError | undefined {
  if (StorageFaultError.isInstance(error)) return error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, path } = error as { code?: unknown; path?: unknown };
  const kind = storageFaultKind(code);
  if (kind === undefined) return undefined;
  const file = typeof path === "string" ? path : where.path;
  return new StorageFaultError(
    { kind, path: kind === "read-only" ? (where.home ?? file) : file, systemCode: String(code) },
    { cause: error },
  );
}
