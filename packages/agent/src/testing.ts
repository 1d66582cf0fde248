/**
 * Test helpers (`@tapedeck/agent/testing`): a scripted `LlmProvider` for unit tests of the loop and
 * of surfaces built on it. End-to-end tests replay recorded sessions with `@tapedeck/llm-replay`.
 */
import { readFileSync } from "node:fs";
import type { LlmProvider, LlmRequest, LlmStreamPart } from "@tapedeck/llm";

/**
 * One scripted model call: a text answer (streamed in `chunks` pieces), tool calls, a thrown
 * error, or a stream that hangs until aborted.
 */
export type ScriptStep =
  | { text: string; chunks?: number }
  | { calls: { callId: string; name: string; arguments: unknown }[]; text?: string }
  | { error: Error }
  | { hang: true; text?: string };

function splitText(text: string, chunks: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / chunks));
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size)
    parts.push(text.slice(index, index + size));
  return parts;
}

/**
 * A scripted provider for unit tests of the loop (the end-to-end tests use llm-replay): answers
 * each request with the next step and records every request.
 */
export function scriptedProvider(steps: ScriptStep[]): LlmProvider & {
  requests: LlmRequest[];
  remaining: () => number;
} {
  const queue = [...steps];
  const requests: LlmRequest[] = [];
  return {
    id: "scripted",
    requests,
    remaining: () => queue.length,
    async *stream(request, options): AsyncGenerator<LlmStreamPart> {
      requests.push(structuredClone(request) as LlmRequest);
      const step = queue.shift();
      if (step === undefined) throw new Error(`unexpected model request #${requests.length}`);
      if ("error" in step) throw step.error;
      if ("hang" in step) {
        if (step.text !== undefined) yield { type: "text-delta", text: step.text };
        await new Promise<void>((_resolve, reject) => {
          const signal = options?.signal;
          if (signal === undefined) return;
          const fail = () => reject(Object.assign(new Error("aborted"), { code: "ABORTED" }));
          if (signal.aborted) fail();
          signal.addEventListener("abort", fail, { once: true });
        });
        return;
      }
      if ("calls" in step) {
        if (step.text !== undefined) yield { type: "text-delta", text: step.text };
        for (const call of step.calls) {
          const args = JSON.stringify(call.arguments);
          yield { type: "tool-call-delta", callId: call.callId, name: call.name, arguments: args };
        }
        yield {
          type: "response",
          items: [
            ...(step.text === undefined
              ? []
              : [{ type: "message" as const, role: "assistant" as const, content: step.text }]),
            ...step.calls.map((call) => ({
              type: "function_call" as const,
              callId: call.callId,
              name: call.name,
              arguments: JSON.stringify(call.arguments),
            })),
          ],
          finishReason: "tool_calls",
          usage: { inputTokens: 100, outputTokens: 10 },
        };
        return;
      }
      for (const piece of splitText(step.text, step.chunks ?? 2)) {
        yield { type: "text-delta", text: piece };
      }
      yield {
        type: "response",
        items: [{ type: "message", role: "assistant", content: step.text }],
        finishReason: "stop",
        usage: { inputTokens: 50, outputTokens: 5 },
      };
    },
  };
}

/**
 * True while the process exists and is not a zombie (an orphan's zombie may linger until init
 * reaps it): what tests of `run_command`'s process groups wait on. Reads `/proc` (Linux).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}
