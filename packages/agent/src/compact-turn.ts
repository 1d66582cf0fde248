import type { LlmOutputItem, LlmProvider, LlmRequest } from "@tapedeck/llm";
import { toolsDigest } from "@tapedeck/llm";
import type { Usage } from "@tapedeck/session";
import { COMPACTION_INSTRUCTIONS, estimateTokens, selectCompaction } from "./compaction";
import { recordedModelCall } from "./model-call";
import { addUsage, type TurnContext } from "./turn-context";

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
  if (summary === "") return;
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
