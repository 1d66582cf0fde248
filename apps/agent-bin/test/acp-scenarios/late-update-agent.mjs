// A deliberately broken ACP agent for the harness's own tests: it prints a log line to stdout and
// sends a session/update after answering session/prompt.
import { createInterface } from "node:readline";

const send = (message) =>
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
process.stdout.write("starting up (this line is not JSON-RPC)\n");
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize")
    send({
      id: message.id,
      result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
    });
  else if (message.method === "session/new")
    send({ id: message.id, result: { sessionId: "0193b6e2-7c1a-7d3e-9f00-00000000beef" } });
  else if (message.method === "session/prompt") {
    const sessionId = message.params.sessionId;
    send({ id: message.id, result: { stopReason: "end_turn" } });
    send({
      method: "session/update",
      params: {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "late" } },
      },
    });
  }
});
