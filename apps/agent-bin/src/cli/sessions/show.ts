import type { Session } from "@tapedeck/session";
import { oneLine, type SessionsContext, visible } from "./context";

function transcript(session: Session): string {
  const lines: string[] = [];
  let turn = 0;
  for (const event of session.events) {
    switch (event.type) {
      case "turn/start":
        // Run ids are time-ordered UUIDs: their first characters are the same for every turn.
        turn += 1;
        lines.push(`\n── turn ${turn} · ${oneLine(event.model, 80)} · ${event.ts}`);
        break;
      case "message":
        if (event.role === "user") lines.push(`> ${visible(event.content).replace(/\n/g, "\n> ")}`);
        else if (event.role === "assistant") lines.push(visible(event.content));
        break;
      case "function_call":
        lines.push(`● ${oneLine(event.name, 60)} ${oneLine(event.arguments, 120)}`);
        break;
      case "function_call_output":
        lines.push(`  ${event.isError ? "✗" : "✓"} ${oneLine(event.output, 160)}`);
        break;
      case "compaction":
        lines.push(`(compacted ${event.replaces.length} items) ${oneLine(event.summary, 200)}`);
        break;
      case "turn/end":
        if (event.status !== "completed") lines.push(`(turn ${event.status})`);
        break;
      default:
        break;
    }
  }
  return `${lines.join("\n").trim()}\n`;
}

/** `sessions show ID`: the conversation, turn by turn, and the current goal. */
export async function show(context: SessionsContext): Promise<number> {
  const { host, store, io, fullScope, needId, remote } = context;
  const sessionId = await needId();
  const session = remote(sessionId)
    ? await host.engine.readSession(fullScope, sessionId)
    : await store.readSession(sessionId);
  io.stdout.write(
    `session ${session.sessionId} · ${oneLine(session.header.cwd, 200)}${session.header.parent ? ` · fork of ${session.header.parent.sessionId}@${session.header.parent.seq}` : ""}\n`,
  );
  if (session.goal !== null) io.stdout.write(`goal: ${visible(session.goal)}\n`);
  io.stdout.write(transcript(session));
  return 0;
}
