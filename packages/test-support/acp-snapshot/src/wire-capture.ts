import type { Readable, Writable } from "node:stream";

/** One JSON-RPC message (or CLI call) as it crossed the wire, in order. */
export type WireEntry =
  | { from: "client" | "agent"; client: number; message: Record<string, unknown> }
  | { from: "cli"; args: string[]; exitCode: number | null; stdout: string };

/** Problems the capture itself detects. */
export interface WireProblem {
  kind: "non-json-stdout";
  client: number;
  line: string;
}

/**
 * Splits a child's stdout into lines, records each as a wire entry (or a problem when it is not
 * JSON-RPC), and re-emits the raw bytes as a web stream for the ACP SDK.
 */
export function captureAgentOutput(
  stdout: Readable,
  client: number,
  onEntry: (entry: WireEntry) => void,
  onProblem: (problem: WireProblem) => void,
): ReadableStream<Uint8Array> {
  let buffered = "";
  const encoder = new TextEncoder();
  let closed = false;
  return new ReadableStream<Uint8Array>({
    cancel() {
      closed = true;
    },
    start(controller) {
      stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        let newline = buffered.indexOf("\n");
        while (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf("\n");
          if (line.trim().length === 0) continue;
          const message = parseJsonRpc(line);
          if (message === undefined) {
            onProblem({ kind: "non-json-stdout", client, line });
            continue;
          }
          onEntry({ from: "agent", client, message });
          if (!closed) controller.enqueue(encoder.encode(`${line}\n`));
        }
      });
      stdout.on("end", () => {
        if (buffered.trim().length > 0)
          onProblem({ kind: "non-json-stdout", client, line: buffered });
        if (!closed) {
          closed = true;
          controller.close();
        }
      });
      stdout.on("error", () => {
        if (!closed) {
          closed = true;
          controller.close();
        }
      });
    },
  });
}

/** A web writable that records each outgoing line and forwards it to the child's stdin. */
export function captureClientInput(
  stdin: Writable,
  client: number,
  onEntry: (entry: WireEntry) => void,
): WritableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let buffered = "";
  return new WritableStream<Uint8Array>({
    write(chunk) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf("\n");
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        const message = parseJsonRpc(line);
        if (message !== undefined) onEntry({ from: "client", client, message });
      }
      return new Promise<void>((resolve) => {
        if (stdin.destroyed || !stdin.writable) return resolve();
        stdin.write(chunk, () => resolve());
      });
    },
    close() {
      stdin.end();
    },
  });
}

function parseJsonRpc(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      (value as Record<string, unknown>).jsonrpc === "2.0"
    ) {
      return value as Record<string, unknown>;
    }
  } catch {
    // not JSON
  }
  return undefined;
}
