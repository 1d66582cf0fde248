import type { SessionEvent } from "@tapedeck/session";
import { citationLabel } from "@tapedeck/session-query";
import { CliUsageError } from "../io";
import { oneLine, type SessionsContext } from "./context";

function describeEvent(event: SessionEvent): string {
  switch (event.type) {
    case "message":
      return `${event.role}: ${event.content}`;
    case "function_call":
      return `call ${event.name} ${event.arguments}`;
    case "function_call_output":
      return `${event.isError ? "error" : "output"} ${event.output}`;
    case "compaction":
      return `compaction (replaces ${event.replaces.join(", ")}): ${event.summary}`;
    case "turn/start":
      return `turn/start ${event.model} ${event.policy.approval}${event.resumed ? " resumed" : ""}`;
    case "turn/end":
      return `turn/end ${event.status}`;
    default:
      return event.type;
  }
}

/** `sessions trace ID SEQ [--json]`: where an event went (replacements, citations). */
export async function trace(context: SessionsContext): Promise<number> {
  const { host, io, values, fullScope, positionals, needIndexedId, print } = context;
  const sessionId = await needIndexedId();
  const seq = Number(positionals[1]);
  if (!Number.isInteger(seq) || seq < 1)
    throw new CliUsageError("sessions trace needs ID and a seq number.");
  const engine = host.engine;
  const trace = await engine.traceEvent(fullScope, sessionId, seq);
  if (values.json) {
    print(trace);
    return 0;
  }
  io.stdout.write(
    `#${trace.event.seq} ${oneLine(describeEvent(trace.event), 120)}${trace.visible ? " (visible)" : ""}\n`,
  );
  // The chain starts with the traced event itself.
  for (const step of trace.replacementChain.slice(1))
    io.stdout.write(`  replaced by #${step.seq} ${oneLine(describeEvent(step.event), 100)}\n`);
  for (const source of trace.sources)
    io.stdout.write(
      `  cites #${source.seq} ${oneLine(describeEvent(source.event), 100)} [${citationLabel(source.via)}]\n`,
    );
  for (const citing of trace.citedBy)
    io.stdout.write(
      `  cited by #${citing.seq} ${oneLine(describeEvent(citing.event), 100)} [${citationLabel(citing.via)}${citing.depth > 1 ? `, depth ${citing.depth}` : ""}]\n`,
    );
  for (const session of trace.subAgents ?? [])
    io.stdout.write(`  started sub-agent ${session.id} ${oneLine(session.title, 100)}\n`);
  return 0;
}
