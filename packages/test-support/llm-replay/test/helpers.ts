import type { LlmRequest, LlmStreamPart } from "@tapedeck/llm";
import type { ScriptedLog } from "../src/index";

/** The request an agent would send for recorded call `index` of a scripted log. */
export function requestFor(log: ScriptedLog, index: number): LlmRequest {
  const call = log.recording().calls[index];
  if (call === undefined) throw new Error(`no call ${index}`);
  return {
    model: log.model,
    input: call.input,
    tools: log.tools,
    ...(log.instructions === undefined ? {} : { instructions: log.instructions }),
  };
}

/** Every part of a stream, in order. */
export async function collect(stream: AsyncIterable<LlmStreamPart>): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The error a stream throws (fails the test if it does not throw). */
export async function streamError(
  stream: AsyncIterable<LlmStreamPart>,
): Promise<{ error: unknown; parts: LlmStreamPart[] }> {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { error, parts };
  }
  throw new Error(`expected the stream to fail; it yielded ${JSON.stringify(parts)}`);
}
