import { TapedeckError } from "@tapedeck/session";
import { unsafeCwdReason } from "@tapedeck/session-store/folder";

const has = (error: unknown, marker: string): boolean =>
  typeof error === "object" &&
  error !== null &&
  (error as Record<symbol, unknown>)[Symbol.for(marker)] === true;

const ambiguousMarker = "tapedeck.error.AmbiguousSessionIdError";
const ambiguousSymbol = Symbol.for(ambiguousMarker);

/** A short id or prefix matches several sessions; `candidates` lists them. */
export class AmbiguousSessionIdError extends TapedeckError {
  readonly [ambiguousSymbol] = true;
  readonly candidates: string[];

  constructor(prefix: string, candidates: string[]) {
    super(
      "AMBIGUOUS_SESSION_ID",
      `Session id prefix ${JSON.stringify(prefix)} matches ${candidates.length} sessions:\n${candidates.map((id) => `  ${id}`).join("\n")}\nGive more characters.`,
    );
    this.name = "AmbiguousSessionIdError";
    this.candidates = candidates;
  }

  static override isInstance(error: unknown): error is AmbiguousSessionIdError {
    return has(error, ambiguousMarker);
  }
}

const noSessionMarker = "tapedeck.error.NoSessionToContinueError";
const noSessionSymbol = Symbol.for(noSessionMarker);

/** "Continue the latest session" found none in the caller's workspace; nothing was created. */
export class NoSessionToContinueError extends TapedeckError {
  readonly [noSessionSymbol] = true;
  readonly workspaceId: string;

  constructor(workspaceId: string) {
    super(
      "NO_SESSION_TO_CONTINUE",
      `No earlier session in the workspace ${workspaceId}; nothing was created. Start one without -c (tapedeck run "prompt"), or pick one with -r ID (tapedeck sessions list --all).`,
    );
    this.name = "NoSessionToContinueError";
    this.workspaceId = workspaceId;
  }

  static override isInstance(error: unknown): error is NoSessionToContinueError {
    return has(error, noSessionMarker);
  }
}

const cwdMissingMarker = "tapedeck.error.SessionCwdMissingError";
const cwdMissingSymbol = Symbol.for(cwdMissingMarker);

/** A resumed or forked session's recorded working directory no longer exists. */
export class SessionCwdMissingError extends TapedeckError {
  readonly [cwdMissingSymbol] = true;
  readonly sessionId: string;
  readonly cwd: string;

  constructor(sessionId: string, cwd: string) {
    super(
      "SESSION_CWD_MISSING",
      `Session ${sessionId} ran in ${cwd}, which is not an existing directory here. Its tools would run somewhere else: choose a directory explicitly with --cwd DIR.`,
    );
    this.name = "SessionCwdMissingError";
    this.sessionId = sessionId;
    this.cwd = cwd;
  }

  static override isInstance(error: unknown): error is SessionCwdMissingError {
    return has(error, cwdMissingMarker);
  }
}

const unsafeCwdMarker = "tapedeck.error.UnsafeSessionCwdError";
const unsafeCwdSymbol = Symbol.for(unsafeCwdMarker);

/**
 * A session records a working directory no run may adopt from a log: a relative path (it would
 * be resolved against wherever the run starts), the filesystem root, or none.
 */
export class UnsafeSessionCwdError extends TapedeckError {
  readonly [unsafeCwdSymbol] = true;
  readonly sessionId: string;
  readonly cwd: string;

  constructor(sessionId: string, cwd: string) {
    super(
      "UNSAFE_SESSION_CWD",
      `Session ${sessionId} records the directory ${JSON.stringify(cwd)}, ${unsafeCwdReason(cwd) ?? "which a log cannot choose"}; it will not work there: choose a directory explicitly with --cwd DIR.`,
    );
    this.name = "UnsafeSessionCwdError";
    this.sessionId = sessionId;
    this.cwd = cwd;
  }

  static override isInstance(error: unknown): error is UnsafeSessionCwdError {
    return has(error, unsafeCwdMarker);
  }
}

const modelMarker = "tapedeck.error.ModelNotConfiguredError";
const modelSymbol = Symbol.for(modelMarker);

/** No provider can be built for the configured model (no key, bad model id). */
export class ModelNotConfiguredError extends TapedeckError {
  readonly [modelSymbol] = true;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super("MODEL_NOT_CONFIGURED", message, options);
    this.name = "ModelNotConfiguredError";
  }

  static override isInstance(error: unknown): error is ModelNotConfiguredError {
    return has(error, modelMarker);
  }
}

const driverMarker = "tapedeck.error.IndexDriverError";
const driverSymbol = Symbol.for(driverMarker);

/**
 * The search index's driver (better-sqlite3, a native addon) cannot be loaded by this Node.js:
 * npm compiled it for the Node.js that installed tapedeck, and this one is another major version
 * (or another platform, or lacks a system library). The message is one sentence naming the
 * package, both ABIs and the fix; see `toIndexDriverError`.
 */
export class IndexDriverError extends TapedeckError {
  readonly [driverSymbol] = true;
  /** The addon's package folder, when Node's message names it. */
  readonly packageFolder: string | undefined;
  /** `NODE_MODULE_VERSION` the addon was built for, and the one this Node needs (ABI causes). */
  readonly builtFor: string | undefined;
  readonly needs: string | undefined;

  constructor(
    message: string,
    fields: {
      packageFolder: string | undefined;
      builtFor: string | undefined;
      needs: string | undefined;
      cause: unknown;
    },
  ) {
    super("INDEX_DRIVER_UNLOADABLE", message, { cause: fields.cause });
    this.name = "IndexDriverError";
    this.packageFolder = fields.packageFolder;
    this.builtFor = fields.builtFor;
    this.needs = fields.needs;
  }

  static override isInstance(error: unknown): error is IndexDriverError {
    return has(error, driverMarker);
  }
}

const undoMovedMarker = "tapedeck.error.UndoMovedError";
const undoMovedSymbol = Symbol.for(undoMovedMarker);

/**
 * An undo asked for one rewind, but the workspace's last rewind (or undo) is another: someone
 * rewound again since (another tab, the CLI). Nothing was changed.
 */
export class UndoMovedError extends TapedeckError {
  readonly [undoMovedSymbol] = true;

  constructor(root: string) {
    super(
      "UNDO_MOVED",
      `${root} was rewound again since; nothing was changed (tapedeck rewind --undo undoes the latest).`,
    );
    this.name = "UndoMovedError";
  }

  static override isInstance(error: unknown): error is UndoMovedError {
    return has(error, undoMovedMarker);
  }
}
