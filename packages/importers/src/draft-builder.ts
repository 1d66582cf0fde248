import { INTERRUPTED_OUTPUT, type TurnStatus } from "@tapedeck/session";
import { attachmentRef } from "@tapedeck/session-store";
import { DRAFT_STATE_VERSION, type DraftState } from "./draft-state";
import { importedRunId } from "./ids";
import { isoOfMillis } from "./iso-time";
import type { InlineImage } from "./sources/images";
import type { ImportedBlob, SourceKey, TimedDraft } from "./types";

/** Extra fields carried on an event (the source's own ids, for example). */
type Extra = Record<string, unknown>;

/** The largest distance from the epoch a `Date` holds, in milliseconds (ECMA-262 §21.4.1.22). */
const MAX_DATE_MILLIS = 8.64e15;

const isoPattern = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d\.\d{3}Z$/;

/** `value` as ISO-8601 UTC with milliseconds, or `undefined` when it is not a time. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) {
    // Seconds or milliseconds since the epoch (pi and opencode use milliseconds).
    const millis = value < 1e11 ? value * 1000 : value;
    // Beyond ±8.64e15 ms a Date is invalid (`toISOString` throws): not a time either.
    return Math.abs(millis) <= MAX_DATE_MILLIS ? isoOfMillis(millis) : undefined;
  }
  if (typeof value !== "string" || value === "") return undefined;
  // Most sources already write this exact form: no need to parse and print it again.
  if (value.length === 24 && isoPattern.test(value)) return value;
  const time = Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}

/**
 * Builds the events of one imported session in order, keeping the log's invariants true whatever
 * the source did: a user prompt opens a turn (closing the one before), assistant output outside a
 * turn opens one, call ids stay unique, an output without its call becomes an `x-` event, and a
 * turn that ends with calls still unanswered gets the same synthetic outputs `normalize` writes.
 * Every decision depends only on what came before, so a source that grew converts to the same
 * prefix and a re-import appends only the new events.
 */
export class DraftBuilder {
  private readonly drafts: TimedDraft[] = [];
  /** The seq of `drafts[0]`: 1, or past the events of the conversion a resumed builder continues. */
  private firstSeq = 1;
  /** The blobs the events' `attachments` name (hash → bytes and type), stored before the log. */
  readonly blobs = new Map<string, ImportedBlob>();
  private ts: string;
  /** Time of the last event written: a turn's closing events carry it, not the next entry's. */
  private lastTs: string;
  private turns = 0;
  private turnStartIndex: number | undefined;
  private turnStatus: TurnStatus | undefined;
  private turnError: string | undefined;
  /** Source call id → { the id written, the call's seq } for calls without output yet. */
  private readonly pending = new Map<string, { callId: string; seq: number }>();
  private readonly usedCallIds = new Set<string>();
  /** Surface seqs currently visible, in order (for compaction `replaces`). */
  private visible: number[] = [];
  private model: string;

  /** Run ids of the current turn and of events outside turns. */
  private runId: string;

  /**
   * @param key the source session (names the `x-<tool>-…` events).
   * @param runKey the session whose run ids this one shares: a branch passes its trunk's key, so
   *   the turns they share have identical events and the branch can fork the trunk.
   */
  constructor(
    readonly key: SourceKey,
    createdAt: string,
    defaultModel = `${key.tool}:unknown`,
    private readonly runKey: SourceKey = key,
  ) {
    this.runId = importedRunId(runKey, 0);
    this.ts = createdAt;
    this.lastTs = createdAt;
    this.model = defaultModel;
  }

  /** The seq the next event gets. */
  get nextSeq(): number {
    return this.firstSeq + this.drafts.length;
  }

  /**
   * The state to go on from after the events built so far (see `draft-state.ts`): a builder
   * {@link DraftBuilder.resume}d from it and given the source's following entries builds the
   * events this one would have built after them. Taken after {@link finish}: the last turn stays
   * open, as the source may still continue it.
   */
  state(): DraftState {
    return {
      version: DRAFT_STATE_VERSION,
      key: { ...this.key },
      runKey: { ...this.runKey },
      nextSeq: this.nextSeq,
      ts: this.ts,
      lastTs: this.lastTs,
      turns: this.turns,
      inTurn: this.inTurn,
      ...(this.turnStatus === undefined ? {} : { turnStatus: this.turnStatus }),
      ...(this.turnError === undefined ? {} : { turnError: this.turnError }),
      pending: [...this.pending].map(([source, call]) => [source, call.callId, call.seq]),
      usedCallIds: [...this.usedCallIds],
      visible: [...this.visible],
      model: this.model,
      runId: this.runId,
    };
  }

  /**
   * A builder that continues from `state`: its events start at `state.nextSeq` and
   * {@link finish} returns only those (the ones before are in the log already); its `blobs` are
   * the new events' only.
   */
  static resume(state: DraftState): DraftBuilder {
    const builder = new DraftBuilder(state.key, state.ts, state.model, state.runKey);
    builder.firstSeq = state.nextSeq;
    builder.lastTs = state.lastTs;
    builder.turns = state.turns;
    // Only whether a turn is open is read from it.
    builder.turnStartIndex = state.inTurn ? 0 : undefined;
    builder.turnStatus = state.turnStatus;
    builder.turnError = state.turnError;
    for (const [source, callId, seq] of state.pending) builder.pending.set(source, { callId, seq });
    for (const callId of state.usedCallIds) builder.usedCallIds.add(callId);
    builder.visible = [...state.visible];
    builder.runId = state.runId;
    return builder;
  }

  /** True while a turn is open. */
  get inTurn(): boolean {
    return this.turnStartIndex !== undefined;
  }

  /** Sets the time of the following events (ignored when `value` is not a time). */
  at(value: unknown): this {
    const time = isoTime(value);
    if (time !== undefined) this.ts = time;
    return this;
  }

  /**
   * The model of later turns (`provider:model`). The open turn's `turn/start` keeps the model it
   * was written with: sources name the model on the reply, after the prompt, and a `turn/start`
   * changed afterwards would make a file that grew convert to something other than what was
   * imported from it before (a fork instead of an append).
   */
  setModel(model: string | undefined): void {
    if (model === undefined || model === "") return;
    this.model = model;
  }

  /** How the open turn ended, when the source says (aborted, failed). */
  markTurn(status: TurnStatus, error?: string): void {
    if (this.turnStartIndex === undefined) return;
    this.turnStatus = status;
    if (error !== undefined) this.turnError = error;
  }

  /**
   * The `attachments` field for `images` (spread into an event's extra fields): each image is
   * kept for the store under its sha256; none gives no field (the event is as before).
   */
  attach(images: readonly InlineImage[]): Extra {
    if (images.length === 0) return {};
    const attachments = images.map((image) => {
      const ref = attachmentRef(image.data, image.mediaType);
      this.blobs.set(ref.blob, image);
      return ref;
    });
    return { attachments };
  }

  /** A prompt typed by the person: closes the open turn and opens one. */
  userPrompt(content: string, extra: Extra = {}): number {
    this.endTurn();
    // The source id of the prompt names the run, so branches that share it share the run.
    const anchor = extra.entryId ?? extra.uuid ?? extra.messageId;
    this.startTurn(typeof anchor === "string" ? anchor : "");
    return this.surface({
      runId: this.runId,
      type: "message",
      role: "user",
      content,
      ...extra,
      ts: this.ts,
    });
  }

  /** Assistant text. */
  assistantText(content: string, extra: Extra = {}): number {
    this.ensureTurn();
    return this.surface({
      runId: this.runId,
      type: "message",
      role: "assistant",
      content,
      ...extra,
      ts: this.ts,
    });
  }

  /** A tool call; `args` is JSON text. Returns its seq. */
  call(sourceCallId: string, name: string, args: string, extra: Extra = {}): number {
    this.ensureTurn();
    let callId = sourceCallId === "" ? `call-${this.nextSeq}` : sourceCallId;
    const fields: Extra = { ...extra };
    if (this.usedCallIds.has(callId)) {
      // A call id must be unique in a session; the source's own id is kept beside it.
      fields.providerCallId = callId;
      let index = 2;
      while (this.usedCallIds.has(`${sourceCallId}~${index}`)) index += 1;
      callId = `${sourceCallId}~${index}`;
    }
    this.usedCallIds.add(callId);
    const seq = this.surface({
      runId: this.runId,
      type: "function_call",
      callId,
      name: name === "" ? "unknown" : name,
      arguments: args,
      ...fields,
      ts: this.ts,
    });
    this.pending.set(sourceCallId, { callId, seq });
    return seq;
  }

  /** True when a call with this source id waits for its output. */
  hasPendingCall(sourceCallId: string): boolean {
    return this.pending.has(sourceCallId);
  }

  /**
   * A tool's output. An output whose call was never seen (or already answered) is kept as an
   * `x-<tool>-orphan-output` event: searchable, not model history.
   */
  output(sourceCallId: string, output: string, isError: boolean, extra: Extra = {}): number {
    const call = this.pending.get(sourceCallId);
    if (call === undefined || !this.inTurn) {
      return this.extension("orphan-output", output, { callId: sourceCallId, isError, ...extra });
    }
    this.pending.delete(sourceCallId);
    return this.surface({
      runId: this.runId,
      type: "function_call_output",
      callId: call.callId,
      output,
      isError,
      sourceEventSeqs: [call.seq],
      ...extra,
      ts: this.ts,
    });
  }

  /**
   * A summary replacing the visible history before `keepFromSeq` (all of it by default). With
   * nothing to replace it is kept as an `x-<tool>-compaction` event.
   */
  compaction(summary: string, options: { keepFromSeq?: number } = {}, extra: Extra = {}): number {
    const keepFrom = options.keepFromSeq;
    const replaces = this.visible.filter((seq) => keepFrom === undefined || seq < keepFrom);
    if (replaces.length === 0) return this.extension("compaction", summary, extra);
    const seq = this.nextSeq;
    this.push({
      runId: this.runId,
      type: "compaction",
      summary,
      surfaceOp: "replace",
      replaces,
      ...extra,
      ts: this.ts,
    });
    const kept = this.visible.filter((visible) => !replaces.includes(visible));
    this.visible = [seq, ...kept];
    return seq;
  }

  /** An `x-<tool>-<kind>` event: kept and searchable by `text`, never sent to a model. */
  extension(kind: string, text: string, extra: Extra = {}): number {
    const seq = this.nextSeq;
    this.push({
      runId: this.runId,
      type: `x-${this.key.tool}-${kind}`,
      text,
      ...extra,
      ts: this.ts,
    });
    return seq;
  }

  /** Closes the open turn: unanswered calls get synthetic outputs, as `normalize` would. */
  endTurn(): void {
    if (this.turnStartIndex === undefined) return;
    // What closes a turn must not depend on what follows it in the source (a re-import of a
    // grown file has to produce the same events), so it takes the last event's time.
    const next = this.ts;
    this.ts = this.lastTs;
    let status = this.turnStatus ?? "completed";
    if (this.pending.size > 0 && status === "completed") status = "interrupted";
    for (const [sourceCallId, call] of this.pending) {
      this.surface({
        runId: this.runId,
        type: "function_call_output",
        callId: call.callId,
        output: INTERRUPTED_OUTPUT,
        isError: true,
        synthetic: true,
        sourceEventSeqs: [call.seq],
        ts: this.ts,
      });
      this.pending.delete(sourceCallId);
    }
    this.push({
      runId: this.runId,
      type: "turn/end",
      status,
      ...(this.turnError === undefined ? {} : { error: { message: this.turnError } }),
      ts: this.ts,
    });
    this.turnStartIndex = undefined;
    this.turnStatus = undefined;
    this.turnError = undefined;
    this.ts = next;
  }

  /**
   * Returns every event, the last turn left open: a source never says that its last turn is
   * over (a finished reply and one about to call a tool look the same; Claude Code's
   * `stop_reason` is `null` on every line), so a turn is closed only by the next prompt. Closing
   * it here would write a `turn/end` (and synthetic outputs) that the source may later contradict
   * by growing: the next import could not append and would fork. Open, the log is the one a
   * crashed run leaves; a run that continues it repairs it as `normalize` repairs any.
   */
  finish(): TimedDraft[] {
    return this.drafts;
  }

  private ensureTurn(): void {
    if (this.turnStartIndex === undefined) this.startTurn();
  }

  private startTurn(anchor = ""): void {
    this.turns += 1;
    this.runId = importedRunId(this.runKey, this.turns, anchor);
    this.turnStartIndex = this.drafts.length;
    this.push({
      runId: this.runId,
      type: "turn/start",
      policy: { approval: "ask" },
      model: this.model,
      resumed: false,
      imported: true,
      ts: this.ts,
    });
  }

  private surface(draft: Extra): number {
    const seq = this.nextSeq;
    this.push(draft);
    this.visible.push(seq);
    return seq;
  }

  /**
   * Adds an event built by the caller as `{runId: this.runId, …fields, ts: this.ts}`: one object
   * per event, in the key order the log has always had (a spread into a copy per event cost a
   * generic object clone each, the shapes being many).
   */
  private push(draft: Extra): void {
    this.drafts.push(draft as unknown as TimedDraft);
    this.lastTs = this.ts;
  }
}
