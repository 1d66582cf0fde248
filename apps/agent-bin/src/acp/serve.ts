import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { type AcpAgentOptions, createAcpAgent } from "./acp-agent";

/**
 * Serves the ACP agent on this process's stdin/stdout until the client closes the stream. Nothing
 * but JSON-RPC goes to stdout: `console.log` and friends are redirected to stderr first.
 */
export async function serveAcp(options: AcpAgentOptions): Promise<void> {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = createAcpAgent(options).connect(stream);
  await connection.closed;
}
