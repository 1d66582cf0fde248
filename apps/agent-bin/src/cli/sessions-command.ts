import path from "node:path";
import { parseArgs } from "node:util";
import { repairInterruptedRun } from "@tapedeck/agent";
import { createHost, sessionIdsOnDisk, shortIds } from "@tapedeck/host";
import {
  EventLogCorruptError,
  type Session,
  type SessionEvent,
  TapedeckError,
} from "@tapedeck/session";
import {
  citationLabel,
  exportSession,
  type QueryScope,
  type SessionQueryEngine,
  type SessionSummary,
  settleActiveSessions,
} from "@tapedeck/session-query";
import {
  defaultWorkspaceId,
  type SessionStore,
  writeFileAtomically,
} from "@tapedeck/session-store";
import { CliUsageError, type Io } from "./io";

export const SESSIONS_USAGE = `Usage: tapedeck sessions <command>

  list [--all] [--json]          sessions of this workspace (--all: every workspace)
  search TEXT [--all] [--json]   full-text search over messages, tool calls and outputs
  show ID                        the conversation, turn by turn
  trace ID SEQ [--json]          where an event went: replacements, citing events
  lineage ID [--json]            fork ancestors and descendants
  export ID [-o FILE] [--html]   the validated log as JSONL (forks self-contained); --html: one
                                 self-contained HTML page to read or share (no network)
  verify (ID | --all) [--json]   replay-validate logs; exit 1 on damage
  repair ID                      move a torn tail aside and close an interrupted turn
  rm ID                          move a log to the trash

ID may be a unique prefix of 6+ characters.`;

function short(text: string | null, width: number): string {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function summaryLine(summary: SessionSummary): string {
  return `${summary.id}  ${summary.updatedAt.slice(0, 16).replace("T", " ")}  ${String(summary.turnCount).padStart(3)} ${summary.turnCount === 1 ? "turn " : "turns"}  ${summary.status.padEnd(11)}  ${short(summary.title, 60)}`;
}

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

function transcript(session: Session): string {
  const lines: string[] = [];
  let turn = 0;
  for (const event of session.events) {
    switch (event.type) {
      case "turn/start":
        // Run ids are time-ordered UUIDs: their first characters are the same for every turn.
        turn += 1;
        lines.push(`\n── turn ${turn} · ${event.model} · ${event.ts}`);
        break;
      case "message":
        if (event.role === "user") lines.push(`> ${event.content.replace(/\n/g, "\n> ")}`);
        else if (event.role === "assistant") lines.push(event.content);
        break;
      case "function_call":
        lines.push(`● ${event.name} ${short(event.arguments, 120)}`);
        break;
      case "function_call_output":
        lines.push(`  ${event.isError ? "✗" : "✓"} ${short(event.output, 160)}`);
        break;
      case "compaction":
        lines.push(`(compacted ${event.replaces.length} items) ${short(event.summary, 200)}`);
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

async function verifyOne(
  store: SessionStore,
  sessionId: string,
): Promise<{
  sessionId: string;
  ok: boolean;
  code?: string;
  line?: number;
  offset?: number;
  message?: string;
}> {
  try {
    await store.readSession(sessionId);
    return { sessionId, ok: true };
  } catch (error) {
    if (!EventLogCorruptError.isInstance(error)) throw error;
    return {
      sessionId,
      ok: false,
      code: error.code,
      ...(error.line === undefined ? {} : { line: error.line }),
      ...(error.offset === undefined ? {} : { offset: error.offset }),
      message: error.detail,
    };
  }
}

/** `tapedeck sessions …`. Returns the exit code. */
export async function sessionsCommand(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    io.stdout.write(`${SESSIONS_USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      all: { type: "boolean" },
      json: { type: "boolean" },
      output: { type: "string", short: "o" },
      html: { type: "boolean" },
    },
  });
  const host = createHost({ env: io.env, warn: (text) => io.stderr.write(text) });
  const { store } = host;
  const scope: QueryScope = values.all
    ? { all: true }
    : { workspaceIds: [defaultWorkspaceId(io.cwd)] };
  const fullScope: QueryScope = { all: true };
  const needId = async (): Promise<string> => {
    const text = positionals[0];
    if (text === undefined)
      throw new CliUsageError(
        `sessions ${command} needs a session id${command === "verify" ? " (or --all)" : ""}.`,
      );
    return host.resolveSessionId(text);
  };
  // The index cannot hold a log whose header is damaged; reading the header first reports that
  // damage instead of the index's "not found".
  // A session logged on another machine (team index) has no local header to read.
  const remote = (sessionId: string) => host.teamIndex !== null && store.entry(sessionId) === null;
  const needIndexedId = async (): Promise<string> => {
    const sessionId = await needId();
    if (!remote(sessionId)) await store.readHeader(sessionId);
    return sessionId;
  };
  const print = (value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

  switch (command) {
    case "list": {
      const engine = host.engine;
      const items: SessionSummary[] = [];
      let cursor: string | undefined;
      do {
        const page = await engine.listSessions(scope, {
          limit: 100,
          ...(cursor === undefined ? {} : { cursor }),
        });
        // A turn left open by a process that died is not running: show it as interrupted.
        items.push(
          ...(await settleActiveSessions(
            page.items,
            async (id) => (await store.lockOwner(id)) !== undefined,
          )),
        );
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      if (values.json) print(items);
      else if (items.length === 0)
        io.stderr.write(
          values.all ? "No sessions.\n" : "No sessions in this workspace (try --all).\n",
        );
      else for (const item of items) io.stdout.write(`${summaryLine(item)}\n`);
      return 0;
    }
    case "search": {
      const text = positionals.join(" ").trim();
      if (text === "") throw new CliUsageError("sessions search needs a text.");
      const engine = host.engine;
      const page = await engine.searchEvents(scope, {
        text,
        limit: 50,
        highlight: { open: "[", close: "]" },
      });
      if (values.json)
        print(
          page.items.map((hit) => ({
            sessionId: hit.sessionId,
            seq: hit.event.seq,
            type: hit.event.type,
            snippet: hit.snippet,
          })),
        );
      else if (page.items.length === 0)
        io.stderr.write(
          values.all ? "No matches.\n" : "No matches in this workspace (try --all).\n",
        );
      else
        for (const hit of page.items)
          io.stdout.write(
            `${hit.sessionId} #${hit.event.seq} ${hit.event.type}: ${short(hit.snippet, 120)}\n`,
          );
      return 0;
    }
    case "show": {
      const sessionId = await needId();
      const session = remote(sessionId)
        ? await host.engine.readSession(fullScope, sessionId)
        : await store.readSession(sessionId);
      io.stdout.write(
        `session ${session.sessionId} · ${session.header.cwd}${session.header.parent ? ` · fork of ${session.header.parent.sessionId}@${session.header.parent.seq}` : ""}\n`,
      );
      if (session.goal !== null) io.stdout.write(`goal: ${session.goal}\n`);
      io.stdout.write(transcript(session));
      return 0;
    }
    case "trace": {
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
        `#${trace.event.seq} ${short(describeEvent(trace.event), 120)}${trace.visible ? " (visible)" : ""}\n`,
      );
      // The chain starts with the traced event itself.
      for (const step of trace.replacementChain.slice(1))
        io.stdout.write(`  replaced by #${step.seq} ${short(describeEvent(step.event), 100)}\n`);
      for (const source of trace.sources)
        io.stdout.write(
          `  cites #${source.seq} ${short(describeEvent(source.event), 100)} [${citationLabel(source.via)}]\n`,
        );
      for (const citing of trace.citedBy)
        io.stdout.write(
          `  cited by #${citing.seq} ${short(describeEvent(citing.event), 100)} [${citationLabel(citing.via)}${citing.depth > 1 ? `, depth ${citing.depth}` : ""}]\n`,
        );
      return 0;
    }
    case "lineage": {
      const sessionId = await needIndexedId();
      const engine = host.engine;
      const lineage = await engine.traceLineage(fullScope, sessionId);
      if (values.json) {
        print(lineage);
        return 0;
      }
      for (const ancestor of lineage.ancestors)
        io.stdout.write(
          `↑ ${ancestor.session.id} (forked at #${ancestor.forkSeq}) ${short(ancestor.session.title, 60)}\n`,
        );
      io.stdout.write(`● ${lineage.session.id} ${short(lineage.session.title, 60)}\n`);
      const walk = (nodes: typeof lineage.descendants, depth: number) => {
        for (const node of nodes) {
          io.stdout.write(
            `${"  ".repeat(depth)}↳ ${node.session.id} (at #${node.forkSeq}) ${short(node.session.title, 60)}\n`,
          );
          walk(node.children, depth + 1);
        }
      };
      walk(lineage.descendants, 1);
      return 0;
    }
    case "export": {
      const sessionId = await needIndexedId();
      const engine = host.engine;
      const text =
        values.html === true
          ? await exportHtml(store, engine, fullScope, sessionId, remote(sessionId))
          : await exportSession(engine, fullScope, sessionId);
      if (values.output !== undefined) {
        // All or nothing: a full disk leaves neither a half export nor a temp file.
        writeFileAtomically(path.resolve(io.cwd, values.output), text, 0o666);
        io.stderr.write(`Exported ${sessionId} to ${values.output}\n`);
      } else {
        io.stdout.write(text);
      }
      return 0;
    }
    case "verify": {
      const ids = values.all ? await sessionIdsOnDisk(store) : [await needId()];
      const results = [];
      for (const id of ids) results.push(await verifyOne(store, id));
      const damaged = results.filter((result) => !result.ok);
      if (values.json) print(results);
      else {
        for (const result of results) {
          io.stdout.write(
            result.ok
              ? `ok       ${result.sessionId}\n`
              : `DAMAGED  ${result.sessionId}  ${result.code} at line ${result.line ?? "?"}, byte ${result.offset ?? "?"}: ${result.message}\n`,
          );
        }
        io.stderr.write(`${results.length} checked, ${damaged.length} damaged\n`);
      }
      return damaged.length > 0 ? 1 : 0;
    }
    case "repair": {
      const sessionId = await needId();
      const report = await store.repair(sessionId).catch((error: unknown) => {
        if (EventLogCorruptError.isInstance(error) && error.code !== "TORN_TAIL") {
          throw new TapedeckError(
            error.code,
            `${error.message}. repair only moves an unfinished last line aside; fix that line by hand, or move the session to the trash with "tapedeck sessions rm ${sessionId}".`,
          );
        }
        throw error;
      });
      if (report.action === "moved-torn-tail") {
        io.stdout.write(
          `Moved a torn tail of ${report.bytesMoved} bytes to ${report.sidecarPath}\n`,
        );
      }
      const writer = await store.openWriter(sessionId);
      try {
        const repairs = await repairInterruptedRun(writer.session);
        if (repairs.length > 0) {
          await writer.append(repairs);
          io.stdout.write(
            `Closed the interrupted turn: ${repairs.length} repair event(s) appended.\n`,
          );
        } else if (report.action === "none") {
          io.stdout.write("Nothing to repair.\n");
        }
      } finally {
        await writer.close();
      }
      return 0;
    }
    case "rm": {
      const sessionId = await needId();
      await store.delete(sessionId);
      io.stdout.write(`Moved ${sessionId} to ${store.home}/trash/\n`);
      return 0;
    }
    default:
      throw new CliUsageError(
        `unknown sessions command ${JSON.stringify(command)}.\n\n${SESSIONS_USAGE}`,
      );
  }
}

/** `export --html`: the viewer's renderer, loaded only here (it brings React's server renderer). */
async function exportHtml(
  store: SessionStore,
  engine: SessionQueryEngine,
  scope: QueryScope,
  sessionId: string,
  remote: boolean,
): Promise<string> {
  if (remote) {
    throw new CliUsageError(
      `sessions export --html needs the log on this machine; ${sessionId} is only in the team index (export it as JSONL).`,
    );
  }
  const [{ renderSessionHtml }, session, lineage, onDisk] = await Promise.all([
    import("@tapedeck/web/export"),
    store.readSession(sessionId),
    engine.traceLineage(scope, sessionId).catch(() => null),
    sessionIdsOnDisk(store),
  ]);
  return renderSessionHtml({ session, lineage, shortIds: Object.fromEntries(shortIds(onDisk)) });
}
