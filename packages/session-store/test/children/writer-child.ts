/**
 * A separate process that writes to a session, for the crash and concurrency tests. Bundled
 * once with esbuild and run with plain `node`. It reports on stdout, one line per fact (pipe
 * writes are synchronous on Linux, so a reported line left the process before the next append).
 *
 *   crash  <home> <sessionId> <durability>  resume, then append turns forever: "ok <seq> <digest>"
 *                                           per resolved event, "big <bytes>" before a long write
 *   hold   <home> <sessionId>               open a writer, "locked", wait for a stdin line, append
 *   exit   <home> <sessionId>               open a writer, append a blob, "spare <path>" once the
 *                                           spare staged file for the next blob is made, then
 *                                           process.exit(3) with the writer open
 *   try    <home> <sessionId>               one append: "ok" or "busy <owner pid>"
 *   hammer <home> <sessionId> <name> <n>    after "go" on stdin, n one-shot appends, retrying on busy
 *   cycle  <home> <sessionId>               forever: compact the log (cold, or its segment folded),
 *                                           then append one event (to the cold log's segment):
 *                                           "ok <seq> <digest>" per append
 *   cycle-blobs <home> <sessionId>          the same, each append a message of a ~100 KB build log
 *                                           that differs from the last in a few lines (a blob, which
 *                                           the next compact stores as a delta against an earlier one)
 */
import { createHash, randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import {
  SessionBusyError,
  type SessionEvent,
  type SessionEventDraft,
  uuidv7,
} from "@tapedeck/session";
import { createSessionStore, type Durability } from "../../src/index";

const [mode, home, sessionId, ...rest] = process.argv.slice(2);
if (mode === undefined || home === undefined || sessionId === undefined) {
  throw new Error("usage: writer-child <mode> <home> <sessionId> …");
}

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Digest of an event's line as written (without its "\n"). */
function digest(event: SessionEvent): string {
  return createHash("sha1").update(JSON.stringify(event)).digest("hex").slice(0, 16);
}

function nextLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  return new Promise((resolve) => {
    lines.once("line", (line) => {
      lines.close();
      // An open stdin would keep this process alive after its work is done.
      process.stdin.destroy();
      resolve(line);
    });
  });
}

function random(max: number): number {
  return Math.floor(Math.random() * max);
}

async function crash(durability: Durability): Promise<void> {
  const store = createSessionStore({ home: home!, durability });
  const resumed = await store.resumeSession(sessionId!);
  const writer = await store.openWriter(sessionId!);
  report("ready");
  const append = async (drafts: SessionEventDraft[]) => {
    const events = await writer.append(drafts);
    for (const event of events) report(`ok ${event.seq} ${digest(event)}`);
    return events;
  };
  if (resumed.synthesizedEvents.length > 0) await append(resumed.synthesizedEvents);
  for (;;) {
    const runId = uuidv7();
    await append([
      {
        type: "turn/start",
        runId,
        policy: { approval: "auto" },
        model: "openai:gpt-4.1-mini",
        resumed: true,
      },
      {
        type: "message",
        runId,
        role: "user",
        content: `question ${randomBytes(4).toString("hex")}`,
      },
    ]);
    for (let call = random(4); call > 0; call -= 1) {
      const callId = `call_${uuidv7()}`;
      const [callEvent] = await append([
        { type: "function_call", runId, callId, name: "shell", arguments: '{"command":"ls"}' },
      ]);
      // Now and then a large output, so that a kill can land inside its write(): "big" tells
      // the parent a long write is about to start.
      const big = Math.random() < 0.2;
      const size = big ? 1024 * 1024 + random(3 * 1024 * 1024) : random(200);
      if (big) report(`big ${size}`);
      await append([
        {
          type: "function_call_output",
          runId,
          callId,
          output: "x".repeat(size),
          isError: false,
          sourceEventSeqs: [callEvent!.seq],
        },
      ]);
    }
    for (let index = random(5); index > 0; index -= 1) {
      await append([{ type: "x-progress", runId, index }]);
    }
    await append([
      { type: "message", runId, role: "assistant", content: "done ✓" },
      { type: "turn/end", runId, status: "completed" },
    ]);
  }
}

/** Forever: compact the log, then append the event `next` makes (which restores it plain). */
async function cycle(next: (index: number) => SessionEventDraft): Promise<void> {
  const store = createSessionStore({ home: home! });
  report("ready");
  for (let index = 0; ; index += 1) {
    await store.compact(sessionId!);
    const [event] = await store.append(sessionId!, [next(index)]);
    report(`ok ${event!.seq} ${digest(event!)}`);
  }
}

/** A build log of ~100 KB: the same lines each run but a few timings (a re-run). */
function buildLog(run: number): string {
  const lines: string[] = [];
  for (let index = 0; index < 1500; index += 1) {
    const token = createHash("sha1").update(String(index)).digest("hex").slice(0, 12);
    lines.push(
      `src/module-${index % 97}/file-${index}.ts ${token} ok in ${index % 40 === 0 ? run : index}ms`,
    );
  }
  return lines.join("\n");
}

async function hold(): Promise<void> {
  const store = createSessionStore({ home: home! });
  const writer = await store.openWriter(sessionId!);
  report("locked");
  await nextLine();
  await writer.append([{ type: "x-held", runId: "hold" }]);
  await writer.close();
  report("done");
}

async function exitWithWriterOpen(): Promise<void> {
  const store = createSessionStore({ home: home! });
  const writer = await store.openWriter(sessionId!);
  // A first blob: from then on the store keeps a spare for the next one.
  const runId = uuidv7();
  await writer.append([
    {
      type: "turn/start",
      runId,
      policy: { approval: "auto" },
      model: "openai:gpt-4.1-mini",
      resumed: false,
    },
    { type: "message", runId, role: "user", content: "a pasted log\n".repeat(8000) },
  ]);
  const blobs = (store as unknown as { blobs: { spareFile(): Promise<string | undefined> } }).blobs;
  report(`spare ${await blobs.spareFile()}`);
  process.exit(3);
}

async function attempt(): Promise<void> {
  const store = createSessionStore({ home: home! });
  try {
    await store.append(sessionId!, [{ type: "x-try", runId: "try" }]);
    report("ok");
  } catch (error) {
    if (!SessionBusyError.isInstance(error)) throw error;
    report(`busy ${error.owner?.pid}`);
  }
}

async function hammer(name: string, count: number): Promise<void> {
  const store = createSessionStore({ home: home! });
  report("ready");
  await nextLine();
  let busy = 0;
  for (let index = 0; index < count; ) {
    try {
      await store.append(sessionId!, [
        { type: "x-hammer", runId: name, index, pad: name.repeat(50) },
      ]);
      index += 1;
    } catch (error) {
      if (!SessionBusyError.isInstance(error)) throw error;
      busy += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  report(JSON.stringify({ name, busy }));
}

switch (mode) {
  case "crash":
    await crash((rest[0] ?? "turn") as Durability);
    break;
  case "hold":
    await hold();
    break;
  case "cycle-blobs":
    await cycle((index) => ({
      type: "message",
      runId: "cycle",
      role: "user",
      content: buildLog(Date.now() + index),
    }));
    break;
  case "cycle":
    await cycle((index) => ({
      type: "x-cycle",
      runId: "cycle",
      index,
      pad: randomBytes(64).toString("hex"),
    }));
    break;
  case "exit":
    await exitWithWriterOpen();
    break;
  case "try":
    await attempt();
    break;
  case "hammer":
    await hammer(rest[0] ?? "p", Number(rest[1] ?? "100"));
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
