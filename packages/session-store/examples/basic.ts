/**
 * Create a session, run one turn that is interrupted inside a tool call, resume it, and fork it.
 * Run from the repository root: `pnpm --filter @tapedeck/session-store exec tsx examples/basic.ts`
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuidv7 } from "@tapedeck/session";
import { createSessionStore } from "@tapedeck/session-store";

const store = createSessionStore({ home: mkdtempSync(join(tmpdir(), "tapedeck-example-")) });

// A new session: header + seed written at once.
const { sessionId } = await store.create({
  cwd: process.cwd(),
  seed: [{ type: "message", runId: "seed", role: "system", content: "You are helpful." }],
});

// One run holds a writer for its whole turn; seq and ts are assigned by the store.
const runId = uuidv7();
const writer = await store.openWriter(sessionId);
await writer.append([
  {
    type: "turn/start",
    runId,
    policy: { approval: "auto" },
    model: "openai:gpt-4.1-mini",
    resumed: false,
  },
  { type: "message", runId, role: "user", content: "List the files." },
  { type: "function_call", runId, callId: "call_1", name: "shell", arguments: '{"command":"ls"}' },
]);
await writer.close(); // the process "dies" before the tool answers

// Resume: full history plus the repair of the unfinished call; nothing written yet.
const resumed = await store.resumeSession(sessionId);
console.log("history sent to the model:", resumed.history);
console.log(
  "repairs to persist:",
  resumed.synthesizedEvents.map((event) => event.type),
);
await store.append(sessionId, resumed.synthesizedEvents);

// Fork after the user's message: the child file holds only its header.
const fork = await store.fork(sessionId, { atSeq: 3 });
const child = await store.readSession(fork.sessionId);
console.log(
  "fork:",
  fork.header.parent,
  "events:",
  child.events.map((event) => `${event.seq} ${event.type}`),
);

for await (const { event, line, offset } of store.read(sessionId)) {
  console.log(`line ${line} @ byte ${offset}: seq ${event.seq} ${event.type}`);
}
