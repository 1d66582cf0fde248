/**
 * Runnable example: `pnpm --filter @tapedeck/session-query exec tsx examples/search.ts`.
 * Writes two sessions with the store, indexes them with SQLite, and queries them.
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { createSessionQueryTool, exportSession } from "../src/index";
import { createSqliteQueryEngine } from "../src/sqlite/index";

const home = fs.mkdtempSync(join(tmpdir(), "tapedeck-example-"));
const store = createSessionStore({ home });
const workspaceId = "/home/me/shop";

const { sessionId } = await store.create({ cwd: workspaceId, workspaceId });
const runId = "run-1";
await store.append(sessionId, [
  {
    type: "turn/start",
    runId,
    policy: { approval: "auto" },
    model: "openai:gpt-4.1-mini",
    resumed: false,
  },
  {
    type: "message",
    runId,
    role: "user",
    content: "The multi-agent checkout test fails: 数据库连接超时",
  },
  {
    type: "function_call",
    runId,
    callId: "call-1",
    name: "shell",
    arguments: '{"command":"pnpm test checkout"}',
  },
]);
await store.append(sessionId, [
  {
    type: "function_call_output",
    runId,
    callId: "call-1",
    output: "Error: connect ETIMEDOUT (数据库 pool exhausted)",
    isError: true,
    sourceEventSeqs: [3],
  },
  {
    type: "message",
    runId,
    role: "assistant",
    content: "The database pool is exhausted; raising max to 20.",
  },
  { type: "turn/end", runId, status: "completed" },
]);

const engine = createSqliteQueryEngine({ path: join(home, "index.sqlite"), store });
console.log(await engine.sync()); // { sessionsAdded: 1, eventsIndexed: 6, … }
const scope = { workspaceIds: [workspaceId] };

for (const text of [
  "multi-agent",
  "数据库",
  "database pool",
  "ETIMEDOUT",
  "c++ (",
  '"unbalanced',
]) {
  const page = await engine.searchEvents(scope, { text });
  console.log(
    JSON.stringify(text),
    page.items.map((hit) => `#${hit.event.seq} ${hit.snippet}`),
  );
}
// Search as you type: the last word matches as a prefix ("po" → "pool").
const typing = await engine.searchEvents(scope, { text: "database po", prefix: "last" });
console.log(
  '"database po" (prefix: last)',
  typing.items.map((hit) => `#${hit.event.seq} ${hit.snippet}`),
);
const tools = await engine.searchEvents(scope, { toolName: "shell", order: "oldest" });
console.log(
  "shell:",
  tools.items.map((hit) => `${hit.event.type} #${hit.event.seq}`),
);
console.log((await engine.listSessions(scope)).items[0]);
console.log((await engine.traceEvent(scope, sessionId, 3)).citedBy.map((citer) => citer.seq));
console.log(
  (await exportSession(engine, scope, sessionId)).split("\n").length - 1,
  "lines exported",
);

const tool = createSessionQueryTool(engine, { workspaceId });
console.log(await tool.execute({ action: "search_events", text: "pool" }));
console.log(await tool.execute({ action: "list_sessions", scope: { all: true } }));

engine.close();
fs.rmSync(home, { recursive: true, force: true });
