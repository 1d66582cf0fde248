/**
 * A `DraftBuilder`'s state between two conversions of a growing source: what it needs to go on
 * converting the lines after the ones already converted and produce the events a conversion of
 * the whole file would have produced after them. Plain JSON, so it can be kept in a file; read
 * back through {@link parseDraftState}, which refuses anything not of this version (the caller
 * then converts the whole file).
 */
import { z } from "zod";
import { importSources } from "./types";

/** Bumped whenever the builder's state or its decisions change: an older state is not used. */
export const DRAFT_STATE_VERSION = 1;

const sourceKeySchema = z.object({ tool: z.enum(importSources), sessionId: z.string() });

/** The zod schema of {@link DraftState}, for states kept inside a converter's own. */
export const draftStateSchema = z.object({
  version: z.literal(DRAFT_STATE_VERSION),
  key: sourceKeySchema,
  runKey: sourceKeySchema,
  /** The seq the next event gets. */
  nextSeq: z.number().int().min(1),
  ts: z.string(),
  lastTs: z.string(),
  turns: z.number().int().min(0),
  inTurn: z.boolean(),
  turnStatus: z.enum(["completed", "cancelled", "failed", "interrupted"]).optional(),
  turnError: z.string().optional(),
  /** Source call id, id written, the call's seq: calls still waiting for their output. */
  pending: z.array(z.tuple([z.string(), z.string(), z.number().int().min(1)])),
  usedCallIds: z.array(z.string()),
  visible: z.array(z.number().int().min(1)),
  model: z.string(),
  runId: z.string(),
});

/** A `DraftBuilder`'s state (see `DraftBuilder.state` and `DraftBuilder.resume`). */
export type DraftState = z.infer<typeof draftStateSchema>;

/**
 * `value` (a kept state, e.g. parsed from a file) as a {@link DraftState}, or `undefined` when it
 * is not one of this version: the source is then converted whole, as when no state was kept.
 */
export function parseDraftState(value: unknown): DraftState | undefined {
  const parsed = draftStateSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
