import type { LlmProvider, LlmRequest, ResponsePart } from "@tapedeck/llm";
import { requestDigest } from "@tapedeck/llm";
import { TapedeckError, uuidv7 } from "@tapedeck/session";
import { RunCancelled, type TurnContext } from "./turn-context";

/** Ends a model call the person cancelled; keeps the text they already saw. */
async function cancelledCall(
  context: TurnContext,
  requestId: string,
  text: string,
  visible: boolean,
): Promise<never> {
  const { runId, write } = context;
  await write([{ type: "model/response", runId, requestId, finishReason: "cancelled" }]);
  if (visible && text !== "") {
    // Keep what the person already saw, so the history matches the screen.
    await write([{ type: "message", runId, role: "assistant", content: text }]);
  }
  throw new RunCancelled();
}

/**
 * One recorded model call: `model/request` (digests, `inputItems`), one `assistant/chunk` per
 * streamed delta (`index` 0-based), `model/response` (with `refusal` when the model declined).
 * An answer's text is what the person sees (projected from its chunks); a compaction's call is
 * logged with `purpose: "compaction"`, so no projection of the log shows its text.
 *
 * @returns the final response part.
 * @throws RunCancelled when the run was cancelled; the provider's error after recording it.
 */
export async function recordedModelCall(
  context: TurnContext,
  provider: LlmProvider,
  request: LlmRequest,
  inputItems: number[],
  digestTools: string,
  purpose?: "compaction",
): Promise<{ response: ResponsePart; requestId: string }> {
  const { runId, write, signal } = context;
  const requestId = uuidv7();
  const visible = purpose === undefined;
  await write([
    {
      type: "model/request",
      runId,
      requestId,
      provider: provider.id,
      model: request.model,
      inputDigest: requestDigest(request),
      toolsDigest: digestTools,
      inputItems,
      toolNames: request.tools.map((tool) => tool.name),
      ...(purpose === undefined ? {} : { purpose }),
    },
  ]);
  let index = 0;
  let text = "";
  let response: ResponsePart | undefined;
  try {
    for await (const part of provider.stream(request, { signal })) {
      if (part.type === "text-delta") {
        await write([
          { type: "assistant/chunk", runId, requestId, index, delta: { text: part.text } },
        ]);
        index += 1;
        text += part.text;
      } else if (part.type === "tool-call-delta") {
        const delta =
          part.name === undefined
            ? { callId: part.callId, arguments: part.arguments }
            : { callId: part.callId, name: part.name, arguments: part.arguments };
        await write([{ type: "assistant/chunk", runId, requestId, index, delta }]);
        index += 1;
      } else {
        response = part;
      }
    }
  } catch (error) {
    if (signal.aborted) await cancelledCall(context, requestId, text, visible);
    const code = TapedeckError.isInstance(error) ? error.code : "MODEL_ERROR";
    const message = (error as Error).message ?? String(error);
    await write([
      {
        type: "model/response",
        runId,
        requestId,
        finishReason: "error",
        error: { code, message },
      },
    ]);
    throw error;
  }
  if (response === undefined && signal.aborted) {
    await cancelledCall(context, requestId, text, visible);
  }
  if (response === undefined) {
    const message = "the model stream ended without a response";
    await write([
      {
        type: "model/response",
        runId,
        requestId,
        finishReason: "error",
        error: { code: "SERVER", message },
      },
    ]);
    throw new TapedeckError("MODEL_STREAM_INCOMPLETE", message);
  }
  await write([
    {
      type: "model/response",
      runId,
      requestId,
      finishReason: response.finishReason,
      ...(response.usage === undefined ? {} : { usage: response.usage }),
      ...(response.refusal === undefined ? {} : { refusal: response.refusal }),
    },
  ]);
  return { response, requestId };
}
