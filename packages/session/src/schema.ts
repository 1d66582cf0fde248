/**
 * zod schemas for the session log (format version 1). These are the contract with every reader
 * and writer; `architecture/session-log.schema.json` is generated from them.
 *
 * Objects are loose: fields this version does not know are kept, so a log written by a newer
 * minor writer still reads. Required fields and their types are strict.
 */
import { z } from "zod";
import { type KNOWN_EVENT_TYPES, MESSAGE_ROLES } from "./event-types";
import { lazySchema, lazySchemaObject } from "./lazy-schema";

/** The only log format version this package reads and writes. */
export const LOG_FORMAT_VERSION = 1;

/**
 * The inferred type without the index signature that loose objects add, so that `Omit` and
 * narrowing keep working. Unknown fields are still carried at run time.
 */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

const seq = lazySchema(() => z.number().int().min(1));
const timestamp = lazySchema(() =>
  z.string().min(1).describe("ISO-8601 UTC timestamp with milliseconds"),
);

const parentRef = lazySchema(() =>
  z.looseObject({
    sessionId: z.string(),
    seq: z.number().int().min(0),
  }),
);
/** The header's reference to the session and seq a fork branches from. */
export const parentRefSchema = lazySchemaObject(parentRef);

const sessionOrigin = lazySchema(() =>
  z.looseObject({
    /** The tool that wrote the source: `claude-code`, `codex`, `pi`, `opencode`, `tapedeck`. */
    tool: z.string(),
    /** The session's id in that tool. */
    sessionId: z.string(),
    /** The file it was read from. */
    path: z.string().optional(),
  }),
);
/** Where an imported session came from (the header's optional `origin`). */
export const sessionOriginSchema = lazySchemaObject(sessionOrigin);

const spawnedByRef = lazySchema(() =>
  z.looseObject({
    /** The session whose tool call started this one. */
    sessionId: z.string(),
    /** The seq of that `function_call` in it. */
    seq: z.number().int().min(1),
    /** Its `callId`. */
    callId: z.string(),
  }),
);
/**
 * The header's optional `spawnedBy` (format version 1): the tool call of another session that
 * started this one as a sub-agent (Claude Code's Task). Not a fork: nothing is inherited.
 */
export const spawnedByRefSchema = lazySchemaObject(spawnedByRef);

const sessionHeader = lazySchema(() =>
  z.looseObject({
    type: z.literal("session"),
    version: z.literal(LOG_FORMAT_VERSION),
    sessionId: z.string(),
    workspaceId: z.string(),
    createdAt: timestamp(),
    cwd: z.string(),
    parent: parentRef().optional(),
    agent: z.looseObject({ name: z.string(), version: z.string() }),
    origin: sessionOrigin().optional(),
    spawnedBy: spawnedByRef().optional(),
  }),
);
/** Line 1 of every log. */
export const sessionHeaderSchema = lazySchemaObject(sessionHeader);

/** The log's first line. */
export type SessionHeader = Known<z.infer<typeof sessionHeaderSchema>>;
/** Where an imported session came from. */
export type SessionOriginRef = z.infer<typeof sessionOriginSchema>;
/** Where a fork branches from. */
export type ParentRef = z.infer<typeof parentRefSchema>;
/** The tool call that started a sub-agent session. */
export type SpawnedByRef = z.infer<typeof spawnedByRefSchema>;

const usage = lazySchema(() =>
  z.looseObject({
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    cachedInputTokens: z.number().int().min(0).optional(),
  }),
);
/** Token counts reported by a model call (or summed over many). */
export const usageSchema = lazySchemaObject(usage);
/** Token counts. */
export type Usage = Known<z.infer<typeof usageSchema>>;

const approvalPolicy = lazySchema(() =>
  z.looseObject({ approval: z.enum(["ask", "auto", "deny"]) }),
);
/** The approval policy of a run, for tools that write or execute. */
export const approvalPolicySchema = lazySchemaObject(approvalPolicy);
/** The approval policy of a run. */
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

const errorInfo = lazySchema(() =>
  z.looseObject({ code: z.string().optional(), message: z.string() }),
);

const common = lazySchema(() => ({
  seq: seq(),
  ts: timestamp(),
  runId: z.string().min(1),
  sourceEventSeqs: z.array(seq()).optional(),
  surfaceOp: z.literal("replace").optional(),
  replaces: z.array(seq()).optional(),
}));

const checkpointChange = lazySchema(() =>
  z.looseObject({
    /** Path relative to the workspace root, `/`-separated. */
    path: z.string().min(1),
    change: z.enum(["added", "modified", "deleted", "renamed", "mode"]),
    /** The old path of a rename. */
    from: z.string().min(1).optional(),
  }),
);
/** One file that changed since the previous checkpoint of the session. */
export const checkpointChangeSchema = lazySchemaObject(checkpointChange);

const checkpointOmitted = lazySchema(() =>
  z.looseObject({
    path: z.string().min(1),
    /** `too-large`: over the size limit (`bytes` says how big it was). */
    reason: z.string(),
    bytes: z.number().int().min(0).optional(),
  }),
);

const checkpointRecord = lazySchema(() =>
  z.looseObject({
    /**
     * The checkpoint's id in the home's checkpoint store (a 40-hex commit id of its private git
     * store, or `lc-` and 32 hex for a light checkpoint). Absent when no checkpoint was taken
     * (`skipped` says why).
     */
    id: z.string().min(1).optional(),
    /** Files changed since the session's previous checkpoint (at most 200 listed). */
    changed: z.array(checkpointChange()),
    /** How many more changes there were than `changed` lists. */
    more: z.number().int().min(0).optional(),
    /** Files present in the workspace but left out of the checkpoint (size limit). */
    omitted: z.array(checkpointOmitted()).optional(),
    /** Why no checkpoint was taken (an error, a limit); the turn went on without one. */
    skipped: z.string().optional(),
  }),
);
/**
 * The workspace's files at this point (optional v1 field on `turn/start` and on the
 * `function_call_output` of tools that may change files). See architecture/checkpoints.md.
 */
export const checkpointRecordSchema = lazySchemaObject(checkpointRecord);
/** One checkpoint as the log records it. */
export type CheckpointRecord = Known<z.infer<typeof checkpointRecordSchema>>;
/** One changed file of a checkpoint. */
export type CheckpointChange = Known<z.infer<typeof checkpointChangeSchema>>;

const turnStartEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("turn/start"),
    policy: approvalPolicy(),
    model: z.string(),
    resumed: z.boolean(),
    /** The workspace's files as the turn starts (optional v1 field). */
    checkpoint: checkpointRecord().optional(),
  }),
);
/** A run (turn) begins. */
export const turnStartEventSchema = lazySchemaObject(turnStartEvent);

const turnStatus = lazySchema(() => z.enum(["completed", "cancelled", "failed", "interrupted"]));
/** How a turn ended. */
export const turnStatusSchema = lazySchemaObject(turnStatus);

const turnEndEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("turn/end"),
    status: turnStatus(),
    usage: usage().optional(),
    error: errorInfo().optional(),
    synthetic: z.boolean().optional(),
  }),
);
/** A run (turn) ends. */
export const turnEndEventSchema = lazySchemaObject(turnEndEvent);

const messageRole = lazySchema(() => z.enum(MESSAGE_ROLES));
/** Who said a message. */
export const messageRoleSchema = lazySchemaObject(messageRole);

const blobRef = lazySchema(() =>
  z.looseObject({
    /** The sha256 of the payload's bytes, lowercase hex: the blob's name in the store. */
    blob: z.string().regex(/^[0-9a-f]{64}$/),
    /** The payload's size in bytes (before compression). */
    bytes: z.number().int().min(0),
    /** What the bytes are: `text/plain; charset=utf-8` for text fields, `image/png`, … */
    mediaType: z.string().min(1),
    /** The payload's first characters (text) or a short description (binary), for readers that do not resolve blobs. */
    preview: z.string(),
  }),
);
/**
 * A payload kept outside the log line, in the home's content-addressed blob store (format
 * version 1, optional). Readers that resolve blobs see the payload's exact bytes; see
 * `architecture/session-log.md`, "Blobs".
 */
export const blobRefSchema = lazySchemaObject(blobRef);

const messageEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("message"),
    role: messageRole(),
    content: z.string(),
    /** `content` is in a blob: the field then holds the blob's preview. */
    contentBlob: blobRef().optional(),
    /** Binary parts the message carried (images), each in a blob; not sent to the model. */
    attachments: z.array(blobRef()).optional(),
    /**
     * A user message only: the slash command the person typed (`/init`, with its arguments) when
     * `content` is the prompt it expanded to, which is what the model is sent. Titles show it.
     */
    command: z.string().optional(),
  }),
);
/** A complete message; a surface item. */
export const messageEventSchema = lazySchemaObject(messageEvent);

const modelRequestEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("model/request"),
    requestId: z.string().min(1),
    provider: z.string(),
    model: z.string(),
    inputDigest: z.string(),
    toolsDigest: z.string(),
    inputItems: z.array(seq()),
    /** Names of the tools offered, in order (lets replay tell which tool changed). */
    toolNames: z.array(z.string()).optional(),
    /**
     * What the call is for: `compaction` (its text becomes a compaction's summary, never shown as
     * the agent's words). Absent: an answer (older logs: a call offering no tools was a compaction).
     */
    purpose: z.literal("compaction").optional(),
  }),
);
/**
 * A model call starts. `inputItems` lists the seqs of the surface items sent, in order;
 * `toolNames` the tools offered.
 */
export const modelRequestEventSchema = lazySchemaObject(modelRequestEvent);

const textDelta = lazySchema(() => z.looseObject({ text: z.string() }));
/** A fragment of streamed assistant text. */
export const textDeltaSchema = lazySchemaObject(textDelta);
const toolCallDelta = lazySchema(() =>
  z.looseObject({
    callId: z.string(),
    name: z.string().optional(),
    arguments: z.string(),
  }),
);
/** A fragment of a streamed tool call. */
export const toolCallDeltaSchema = lazySchemaObject(toolCallDelta);

const assistantChunkEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("assistant/chunk"),
    requestId: z.string().min(1),
    index: z.number().int().min(0),
    delta: z.union([textDelta(), toolCallDelta()]),
  }),
);
/** One streamed chunk, exactly as the model sent it; `index` is 0-based per request. */
export const assistantChunkEventSchema = lazySchemaObject(assistantChunkEvent);

const finishReason = lazySchema(() =>
  z.enum(["stop", "tool_calls", "length", "error", "cancelled"]),
);
/** Why a model call stopped. */
export const finishReasonSchema = lazySchemaObject(finishReason);

const modelResponseEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("model/response"),
    requestId: z.string().min(1),
    finishReason: finishReason(),
    usage: usage().optional(),
    error: errorInfo().optional(),
    /**
     * The model declined to answer: its refusal text (OpenAI's `refusal` content). The call's
     * `finishReason` stays what the API said (usually `stop`); the agent also logs the text as an
     * assistant `message`, so the history shows what the model said.
     */
    refusal: z.string().optional(),
  }),
);
/** A model call ends. */
export const modelResponseEventSchema = lazySchemaObject(modelResponseEvent);

const functionCallEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("function_call"),
    callId: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    /** `arguments` is in a blob: the field then holds the blob's preview. */
    argumentsBlob: blobRef().optional(),
    /** The id the provider gave the call, when it differs from `callId`. */
    providerCallId: z.string().min(1).optional(),
  }),
);
/**
 * The model asks for a tool; a surface item. `arguments` is JSON text. `callId` is unique in the
 * session (invariant 7); when the provider's own id was already taken (a server that reuses ids),
 * the agent gives the call a fresh `callId` and keeps the provider's in `providerCallId`.
 */
export const functionCallEventSchema = lazySchemaObject(functionCallEvent);

const functionCallOutputEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("function_call_output"),
    callId: z.string().min(1),
    output: z.string(),
    isError: z.boolean(),
    synthetic: z.boolean().optional(),
    /** The workspace's files after a tool that may change them (optional v1 field). */
    checkpoint: checkpointRecord().optional(),
    /** `output` is in a blob: the field then holds the blob's preview. */
    outputBlob: blobRef().optional(),
    /** Binary parts the output carried (images), each in a blob; not sent to the model. */
    attachments: z.array(blobRef()).optional(),
  }),
);
/** A tool's answer; a surface item. `sourceEventSeqs` cites the call. */
export const functionCallOutputEventSchema = lazySchemaObject(functionCallOutputEvent);

const compactionEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("compaction"),
    summary: z.string(),
    surfaceOp: z.literal("replace"),
    replaces: z.array(seq()).min(1),
    /** `user`: a person asked (`/compact`); `auto`: the context grew past the limit. */
    trigger: z.enum(["user", "auto"]).optional(),
  }),
);
/** A summary that replaces older surface items. */
export const compactionEventSchema = lazySchemaObject(compactionEvent);

const approvalDecision = lazySchema(() =>
  z.enum(["allow_once", "allow_always", "reject", "cancelled"]),
);
/** A decision a person can take on a tool call. */
export const approvalDecisionSchema = lazySchemaObject(approvalDecision);
/** A decision on an approval request. */
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

const approvalRequestEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("approval/request"),
    callId: z.string().min(1),
    options: z.array(approvalDecision()),
  }),
);
/** The agent asks a person whether a tool call may run. */
export const approvalRequestEventSchema = lazySchemaObject(approvalRequestEvent);

const approvalDecisionEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("approval/decision"),
    callId: z.string().min(1),
    decision: approvalDecision(),
    synthetic: z.boolean().optional(),
  }),
);
/**
 * The answer to an approval request. `synthetic` marks a decision `normalize` wrote for a request
 * a crashed run left unanswered (always `cancelled`).
 */
export const approvalDecisionEventSchema = lazySchemaObject(approvalDecisionEvent);

const goalSetEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("goal/set"),
    goal: z.string().nullable(),
  }),
);
/** The session's standing objective (`null` clears it). */
export const goalSetEventSchema = lazySchemaObject(goalSetEvent);

const errorEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal("error"),
    code: z.string(),
    message: z.string(),
  }),
);
/** Something went wrong and the log says so. */
export const errorEventSchema = lazySchemaObject(errorEvent);

const extensionEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.string().regex(/^x-/),
  }),
);
/** An extension event (`x-…`): carried through, ignored by the surface. */
export const extensionEventSchema = lazySchemaObject(extensionEvent);

const toolProcess = lazySchema(() =>
  z.looseObject({
    /** Process id of the group leader. */
    pid: z.number().int().min(1),
    /** Process group id (the leader's pid: tools start their commands in a new group). */
    pgid: z.number().int().min(1),
    /** `os.hostname()` of the machine the process runs on. */
    host: z.string().min(1),
    /** When the leader started, as the operating system reports it (ISO-8601 UTC). */
    startedAt: timestamp(),
    /**
     * Linux: the boot the group was started in (`/proc/sys/kernel/random/boot_id`). A record
     * without it is never acted on: the host name alone does not prove the group is this machine's.
     */
    bootId: z.string().min(1).optional(),
    /** Linux: the leader's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`). */
    startTicks: z.number().int().min(0).optional(),
    /**
     * SHA-256 (hex) of the random marker put in the environment of the command
     * (`TAPEDECK_CALL_MARKER`): a process is this call's only when its environment holds the
     * marker, which no log can put there.
     */
    marker: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  }),
);
/**
 * The process group a tool started: enough to find it again after a crash and to tell it is still
 * the same process (same host, same pid, same start time).
 */
export const toolProcessSchema = lazySchemaObject(toolProcess);
/** The process group a tool started. */
export type ToolProcess = Known<z.infer<typeof toolProcessSchema>>;

/** Type of the extension event that records a tool's process group. */
export const PROCESS_START_EVENT = "x-process/start";

const processStartEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal(PROCESS_START_EVENT),
    callId: z.string().min(1),
    process: toolProcess(),
  }),
);
/**
 * `x-process/start`: a tool started a process group for the call `callId` (cited in
 * `sourceEventSeqs`). Written before the command runs, so a crashed run's orphans can be found
 * and ended on resume. An `x-` event: readers that do not know it carry it and ignore it.
 */
export const processStartEventSchema = lazySchemaObject(processStartEvent);
/** A parsed `x-process/start` event. */
export type ProcessStartEvent = Known<z.infer<typeof processStartEventSchema>>;

/** Type of the extension event that records a call's processes still running when it ended. */
export const PROCESS_LEFT_RUNNING_EVENT = "x-process/left-running";

const leftRunningProcess = lazySchema(() =>
  z.looseObject({
    pid: z.number().int().min(1),
    /** Its process group id (the call's group, or another when it left with `setsid`). */
    pgid: z.number().int().min(1),
    /** Start time in clock ticks since boot (the boot of the call's `x-process/start`). */
    startTicks: z.number().int().min(0),
    /** Its command line, cut at 200 characters (untrusted text). */
    command: z.string(),
  }),
);
const processLeftRunningEvent = lazySchema(() =>
  z.looseObject({
    ...common(),
    type: z.literal(PROCESS_LEFT_RUNNING_EVENT),
    callId: z.string().min(1),
    processes: z.array(leftRunningProcess()),
  }),
);
/**
 * `x-process/left-running`: the call `callId` (cited in `sourceEventSeqs`) ended while these of
 * its processes still ran (a child that left the group holding the output pipes); they were left
 * alone. Written before the call's output. An `x-` event: readers that do not know it ignore it.
 */
export const processLeftRunningEventSchema = lazySchemaObject(processLeftRunningEvent);
/** A parsed `x-process/left-running` event. */
export type ProcessLeftRunningEvent = Known<z.infer<typeof processLeftRunningEventSchema>>;

/** Each known event type's schema getter (built on first use). */
const knownEventSchemaOf = {
  "turn/start": turnStartEvent,
  "turn/end": turnEndEvent,
  message: messageEvent,
  "model/request": modelRequestEvent,
  "assistant/chunk": assistantChunkEvent,
  "model/response": modelResponseEvent,
  function_call: functionCallEvent,
  function_call_output: functionCallOutputEvent,
  compaction: compactionEvent,
  "approval/request": approvalRequestEvent,
  "approval/decision": approvalDecisionEvent,
  "goal/set": goalSetEvent,
  error: errorEvent,
} as const satisfies Record<(typeof KNOWN_EVENT_TYPES)[number], () => unknown>;

/** Every known (non-extension) event type, by name (stand-ins: built on first use). */
export const knownEventSchemas = Object.fromEntries(
  Object.entries(knownEventSchemaOf).map(([type, schema]) => [
    type,
    lazySchemaObject(schema as () => object),
  ]),
) as unknown as {
  readonly [T in keyof typeof knownEventSchemaOf]: ReturnType<(typeof knownEventSchemaOf)[T]>;
};

/** Name of a known event type. */
export type KnownEventType = keyof typeof knownEventSchemas;

const sessionEvent = lazySchema(() =>
  z.union([
    z.discriminatedUnion("type", [
      turnStartEvent(),
      turnEndEvent(),
      messageEvent(),
      modelRequestEvent(),
      assistantChunkEvent(),
      modelResponseEvent(),
      functionCallEvent(),
      functionCallOutputEvent(),
      compactionEvent(),
      approvalRequestEvent(),
      approvalDecisionEvent(),
      goalSetEvent(),
      errorEvent(),
    ]),
    extensionEvent(),
  ]),
);
/** Any event line: a known type or an `x-` extension. */
export const sessionEventSchema = lazySchemaObject(sessionEvent);

export type TurnStartEvent = Known<z.infer<typeof turnStartEventSchema>>;
export type TurnEndEvent = Known<z.infer<typeof turnEndEventSchema>>;
export type TurnStatus = z.infer<typeof turnStatusSchema>;
/** A reference to a payload kept in the blob store. */
export type BlobRef = Known<z.infer<typeof blobRefSchema>>;
export type MessageEvent = Known<z.infer<typeof messageEventSchema>>;
export type MessageRole = z.infer<typeof messageRoleSchema>;
export type ModelRequestEvent = Known<z.infer<typeof modelRequestEventSchema>>;
export type AssistantChunkEvent = Known<z.infer<typeof assistantChunkEventSchema>>;
export type TextDelta = z.infer<typeof textDeltaSchema>;
export type ToolCallDelta = z.infer<typeof toolCallDeltaSchema>;
export type ModelResponseEvent = Known<z.infer<typeof modelResponseEventSchema>>;
export type FinishReason = z.infer<typeof finishReasonSchema>;
export type FunctionCallEvent = Known<z.infer<typeof functionCallEventSchema>>;
export type FunctionCallOutputEvent = Known<z.infer<typeof functionCallOutputEventSchema>>;
export type CompactionEvent = Known<z.infer<typeof compactionEventSchema>>;
export type ApprovalRequestEvent = Known<z.infer<typeof approvalRequestEventSchema>>;
export type ApprovalDecisionEvent = Known<z.infer<typeof approvalDecisionEventSchema>>;
export type GoalSetEvent = Known<z.infer<typeof goalSetEventSchema>>;
export type ErrorEvent = Known<z.infer<typeof errorEventSchema>>;

/** An `x-` extension event. Its `type` always starts with `x-`. */
export type ExtensionEvent = Omit<Known<z.infer<typeof extensionEventSchema>>, "type"> & {
  type: `x-${string}`;
  [field: string]: unknown;
};

/** Any known event. */
export type KnownSessionEvent =
  | TurnStartEvent
  | TurnEndEvent
  | MessageEvent
  | ModelRequestEvent
  | AssistantChunkEvent
  | ModelResponseEvent
  | FunctionCallEvent
  | FunctionCallOutputEvent
  | CompactionEvent
  | ApprovalRequestEvent
  | ApprovalDecisionEvent
  | GoalSetEvent
  | ErrorEvent;

/** Any event line of a log. */
export type SessionEvent = KnownSessionEvent | ExtensionEvent;

/** The event type names, including `x-` extensions. */
export type SessionEventType = SessionEvent["type"];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An extension event as a writer hands it to the store. */
export type ExtensionEventDraft = Omit<
  Known<z.infer<typeof extensionEventSchema>>,
  "type" | "seq" | "ts"
> & {
  type: `x-${string}`;
  [field: string]: unknown;
};

/**
 * An event as a writer hands it to the store: everything but `seq` and `ts`, which the store
 * assigns under the lock.
 */
export type SessionEventDraft =
  | DistributiveOmit<KnownSessionEvent, "seq" | "ts">
  | ExtensionEventDraft;

/** A draft of one specific event type. */
export type EventDraftOf<T extends KnownEventType> = Omit<
  Extract<KnownSessionEvent, { type: T }>,
  "seq" | "ts"
>;

/** The event types that are surface items (model-visible history). */
export const surfaceEventTypes = [
  "message",
  "function_call",
  "function_call_output",
  "compaction",
] as const;

/**
 * The getters behind the exported schema constants, for this package's own readers: each builds
 * its schema on first call (a reader of `message` events never builds `model/request`'s).
 */
export const logSchemaOf = {
  header: sessionHeader,
  event: sessionEvent,
  extension: extensionEvent,
  processStart: processStartEvent,
  known: knownEventSchemaOf,
} as const;
