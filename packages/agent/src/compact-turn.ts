import type { LlmOutputItem, LlmProvider, LlmRequest } from "@tapedeck/llm";
import { toolsDigest } from "@tapedeck/llm";
import { TapedeckError, type Usage } from "@tapedeck/session";
import { COMPACTION_INSTRUCTIONS, estimateTokens, selectCompaction } from "./compaction";
import { recordedModelCall } from "./model-call";
import { addUsage, type TurnContext } from "./turn-context";

const emptySummaryMarker = "tapedeck.error.EmptySummaryError";
const emptySummarySymbol = Symbol.for(emptySummaryMarker);

/**
 * The model answered an on-demand compaction (`/compact`) without any text (code
 * `EMPTY_SUMMARY`): nothing was compacted, and the run that asked for it fails.
 */
export class EmptySummaryError extends TapedeckError {
  readonly [emptySummarySymbol] = true;

  constructor() {
    super("EMPTY_SUMMARY", "The model returned an empty summary, so nothing was compacted.");
    this.name = "EmptySummaryError";
  }

  static override isInstance(error: unknown): error is EmptySummaryError {
    return TapedeckError.hasMarker(error, emptySummaryMarker);
  }
}

/** Options of {@link compactTurn}. */
export interface CompactOptions {
  provider: LlmProvider;
  /** Provider-local model name. */
  model: string;
  /**
   * Summarize whatever the size, because a person asked (`/compact`): everything but the last
   * `keepLastItems`; recorded with `trigger: "user"` (else `"auto"`).
   */
  force: boolean;
  compactAt: number;
  keepLastItems: number;
  /** Usage of the run, increased by the summary call. */
  total: Usage;
}

/**
 * Compacts the surface when it is larger than `compactAt` (or when forced): the model summarizes
 * the chosen items in a recorded call without tools, and one `compaction` event replaces them.
 *
 * @throws EmptySummaryError when forced and the model's answer holds no text (nothing written
 * but the summary call itself).
 */
export async function compactTurn(context: TurnContext, options: CompactOptions): Promise<void> {
  const { runId, write, writer } = context;
  const { force } = options;
  const surface = writer.session.surface;
  if (!force && estimateTokens(surface.map((entry) => entry.item)) <= options.compactAt) return;
  const keepLast = options.keepLastItems;
  const replaces = selectCompaction(surface, keepLast);
  if (replaces.length === 0) return;
  const chosen = new Set(replaces);
  const input = surface.filter((entry) => chosen.has(entry.seq)).map((entry) => entry.item);
  const request: LlmRequest = {
    model: options.model,
    instructions: COMPACTION_INSTRUCTIONS,
    input,
    tools: [],
  };
  const { response } = await recordedModelCall(
    context,
    options.provider,
    request,
    replaces,
    toolsDigest([]),
    "compaction",
  );
  addUsage(options.total, response.usage);
  const summary = response.items
    .filter((item): item is Extract<LlmOutputItem, { type: "message" }> => item.type === "message")
    .map((item) => item.content)
    .join("\n")
    .trim();
  if (summary === "") {
    // Nothing replaces the history: a compaction without a summary would only lose it. On demand
    // the person asked for one, so the run fails and says so; an automatic one is tried again
    // before the next model call.
    if (force) throw new EmptySummaryError();
    return;
  }
  await write([
    {
      type: "compaction",
      runId,
      summary,
      surfaceOp: "replace",
      replaces,
      trigger: force ? "user" : "auto",
    },
  ]);
}
