import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeEventLog } from "./analyze";
import { EventLogCorruptError } from "./errors";
import { replayLogText } from "./log-text";
import { replayEvents } from "./replay";
import { eventLogBuilder } from "./testing";

/** Commands interpreted by a small state machine that only ever emits a valid log. */
type Command =
  | { kind: "turn" }
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | { kind: "call"; name: string }
  | { kind: "output"; pick: number }
  | { kind: "compact"; from: number; count: number }
  | { kind: "end" }
  | { kind: "goal"; text: string | null }
  | { kind: "extension" }
  | { kind: "chunk"; text: string };

const textArbitrary = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("数据库迁移", "héllo\nworld", 'quote " and \\'),
);

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.constant<Command>({ kind: "turn" }),
  textArbitrary.map((text): Command => ({ kind: "user", text })),
  textArbitrary.map((text): Command => ({ kind: "assistant", text })),
  fc.constantFrom("read_file", "run_command").map((name): Command => ({ kind: "call", name })),
  fc.nat(5).map((pick): Command => ({ kind: "output", pick })),
  fc
    .record({ from: fc.nat(10), count: fc.integer({ min: 1, max: 4 }) })
    .map((value): Command => ({ kind: "compact", ...value })),
  fc.constant<Command>({ kind: "end" }),
  fc.option(textArbitrary, { nil: null }).map((text): Command => ({ kind: "goal", text })),
  fc.constant<Command>({ kind: "extension" }),
  textArbitrary.map((text): Command => ({ kind: "chunk", text })),
);

function buildValidLog(commands: readonly Command[]) {
  const log = eventLogBuilder().system("seed");
  let open = false;
  let runId = "";
  let chunkIndex = 0;
  const pending: string[] = [];
  let visible: number[] = [1];
  let callCounter = 0;
  for (const command of commands) {
    switch (command.kind) {
      case "turn":
        if (!open) {
          log.turn();
          runId = log.events.at(-1)!.runId;
          open = true;
        }
        break;
      case "user":
      case "assistant": {
        const event = log.push({
          type: "message",
          runId: runId || "seed",
          role: command.kind,
          content: command.text,
        });
        visible.push(event.seq);
        break;
      }
      case "call":
        if (open) {
          callCounter += 1;
          const callId = `call_${callCounter}`;
          const event = log.push({
            type: "function_call",
            runId,
            callId,
            name: command.name,
            arguments: "{}",
          });
          pending.push(callId);
          visible.push(event.seq);
        }
        break;
      case "output":
        if (open && pending.length > 0) {
          const [callId] = pending.splice(command.pick % pending.length, 1);
          const callSeq = log.events.find(
            (event) => event.type === "function_call" && event.callId === callId,
          )!.seq;
          const event = log.push({
            type: "function_call_output",
            runId,
            callId: callId!,
            output: "out",
            isError: false,
            sourceEventSeqs: [callSeq],
          });
          visible.push(event.seq);
        }
        break;
      case "compact": {
        if (visible.length === 0) break;
        const start = command.from % visible.length;
        const replaces = visible.slice(start, start + command.count);
        const event = log.push({
          type: "compaction",
          runId: runId || "seed",
          summary: "summary",
          surfaceOp: "replace",
          replaces,
        });
        const first = visible.indexOf(replaces[0]!);
        visible = visible.filter((seq) => !replaces.includes(seq));
        visible.splice(first, 0, event.seq);
        break;
      }
      case "end":
        if (open && pending.length === 0) {
          log.end();
          open = false;
        }
        break;
      case "goal":
        log.push({ type: "goal/set", runId: runId || "seed", goal: command.text });
        break;
      case "extension":
        log.push({ type: "x-test", runId: runId || "seed", payload: [1, 2, 3] });
        break;
      case "chunk":
        if (open) {
          log.push({
            type: "assistant/chunk",
            runId,
            requestId: "req",
            index: chunkIndex,
            delta: { text: command.text },
          });
          chunkIndex += 1;
        }
        break;
    }
  }
  return { log, visible };
}

type Mutation =
  | { kind: "delete"; line: number }
  | { kind: "duplicate"; line: number }
  | { kind: "swap"; line: number }
  | { kind: "char"; line: number; position: number; char: string }
  | { kind: "truncate"; line: number; keep: number }
  | { kind: "field"; line: number; field: number; value: unknown };

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((line): Mutation => ({ kind: "delete", line })),
  fc.nat().map((line): Mutation => ({ kind: "duplicate", line })),
  fc.nat().map((line): Mutation => ({ kind: "swap", line })),
  fc
    .record({
      line: fc.nat(),
      position: fc.nat(),
      char: fc.constantFrom("{", "}", '"', ",", "x", "1", "\\", " "),
    })
    .map((value): Mutation => ({ kind: "char", ...value })),
  fc
    .record({ line: fc.nat(), keep: fc.nat() })
    .map((value): Mutation => ({ kind: "truncate", ...value })),
  fc
    .record({
      line: fc.nat(),
      field: fc.nat(),
      value: fc.oneof(
        fc.integer({ min: -2, max: 40 }),
        fc.string({ maxLength: 5 }),
        fc.constant(null),
        fc.constant([3]),
        fc.boolean(),
        fc.constantFrom("turn/start", "turn/end", "function_call_output", "compaction", "replace"),
      ),
    })
    .map((value): Mutation => ({ kind: "field", ...value })),
);

function mutate(lines: string[], mutation: Mutation): string[] {
  const next = [...lines];
  const index = mutation.line % next.length;
  switch (mutation.kind) {
    case "delete":
      next.splice(index, 1);
      break;
    case "duplicate":
      next.splice(index, 0, next[index]!);
      break;
    case "swap":
      if (index + 1 < next.length)
        [next[index], next[index + 1]] = [next[index + 1]!, next[index]!];
      break;
    case "char": {
      const line = next[index]!;
      const position = mutation.position % (line.length + 1);
      next[index] = line.slice(0, position) + mutation.char + line.slice(position + 1);
      break;
    }
    case "truncate":
      next[index] = next[index]!.slice(0, mutation.keep % (next[index]!.length + 1));
      break;
    case "field": {
      const value = JSON.parse(next[index]!) as Record<string, unknown>;
      const keys = Object.keys(value);
      value[keys[mutation.field % keys.length]!] = mutation.value;
      next[index] = JSON.stringify(value);
      break;
    }
  }
  return next;
}

describe("replay properties", () => {
  it("replays every random valid log, with the surface of a plain fold", () => {
    fc.assert(
      fc.property(fc.array(commandArbitrary, { maxLength: 60 }), (commands) => {
        const { log, visible } = buildValidLog(commands);
        const session = replayEvents(log.header, log.events);
        expect(session.currentSeqs).toEqual(visible);
        expect(session.currentSeqs).toEqual(analyzeEventLog(log.events).currentSeqs);
        expect(replayLogText(log.jsonl()).currentSeqs).toEqual(visible);
      }),
      { numRuns: 300 },
    );
  });

  it("either refuses a log with one mutated line or reads every line of it — never a crash or a partial read", () => {
    fc.assert(
      fc.property(
        fc.array(commandArbitrary, { minLength: 3, maxLength: 40 }),
        mutationArbitrary,
        (commands, mutation) => {
          const { log } = buildValidLog(commands);
          const lines = log.jsonl().split("\n").slice(0, -1);
          const mutated = mutate(lines, mutation);
          const text = `${mutated.join("\n")}\n`;
          let session: ReturnType<typeof replayLogText>;
          try {
            session = replayLogText(text, { sessionId: log.header.sessionId });
          } catch (error) {
            expect(EventLogCorruptError.isInstance(error), String(error)).toBe(true);
            return;
          }
          // Accepted: every event line was read, in order, and the surface is the fold of them all.
          const parsed = mutated.slice(1).map((line) => JSON.parse(line) as unknown);
          expect(session.events).toEqual(parsed);
          expect(session.currentSeqs).toEqual(analyzeEventLog(session.events).currentSeqs);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
