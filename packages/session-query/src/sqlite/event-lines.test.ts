import type { LogReader } from "@tapedeck/session-store";
import { describe, expect, it } from "vitest";
import { type EventRow, MAX_GAP_BYTES, readEventLines } from "./event-lines";

/** Logs held in memory, counting opens and reads. */
function fakeStore(logs: Record<string, string>) {
  const counts = { opens: 0, reads: 0, closes: 0, bytes: 0, buffersMade: 0 };
  return {
    counts,
    open(sessionId: string): LogReader | null {
      const text = logs[sessionId];
      if (text === undefined) return null;
      const bytes = Buffer.from(text);
      counts.opens += 1;
      return {
        readAt(offset, length) {
          counts.buffersMade += 1;
          counts.reads += 1;
          counts.bytes += length;
          return offset + length <= bytes.length ? bytes.subarray(offset, offset + length) : null;
        },
        readInto(target, targetOffset, offset, length) {
          counts.reads += 1;
          counts.bytes += length;
          if (offset + length > bytes.length) return false;
          target.set(bytes.subarray(offset, offset + length), targetOffset);
          return true;
        },
        withPayload: (event) => event,
        close() {
          counts.closes += 1;
        },
      } satisfies LogReader;
    },
  };
}

/** A search's row for the line at `offset`, `length` bytes long, of session row `session`. */
function row(session: number, offset: number, length: number): EventRow {
  return [0, session, 0, offset, length, 0, 0];
}

/** Rows of every line of `text` (no newline), for session row `session`. */
function linesOf(session: number, text: string): EventRow[] {
  const rows: EventRow[] = [];
  let offset = 0;
  for (const line of text.split("\n").slice(0, -1)) {
    const length = Buffer.byteLength(line);
    rows.push(row(session, offset, length));
    offset += length + 1;
  }
  return rows;
}

describe("readEventLines", () => {
  const a = '{"seq":1,"x":"é"}\n{"seq":2}\n{"seq":3,"y":"数据"}\n';
  const b = '{"seq":1}\n{"seq":2}\n';
  const ids: Record<number, string> = { 1: "a", 2: "b", 3: "gone" };

  it("reads the lines of one session with one read of their span, in the order asked", () => {
    const store = fakeStore({ a, b });
    const [a1, a2, a3] = linesOf(1, a);
    const [b1, b2] = linesOf(2, b);
    const positions = [a3!, b2!, a1!, b1!, a2!];
    expect(readEventLines(store.open, positions, (session) => ids[session])).toEqual([
      '{"seq":3,"y":"数据"}',
      '{"seq":2}',
      '{"seq":1,"x":"é"}',
      '{"seq":1}',
      '{"seq":2}',
    ]);
    // The readers stay open: the caller owns them (the engine keeps them between searches).
    // Every read goes into one buffer the lines are decoded from: none is made per read.
    expect(store.counts).toMatchObject({ opens: 2, reads: 2, closes: 0, buffersMade: 0 });
  });

  it("gives null for a missing log, an unknown session and a line past the end", () => {
    const store = fakeStore({ a });
    const positions: EventRow[] = [
      row(3, 0, 5),
      row(9, 0, 5),
      row(1, a.length + 10, 4),
      linesOf(1, a)[1]!,
    ];
    // The span of session 1 runs past the end: each of its lines is then read on its own.
    expect(readEventLines(store.open, positions, (session) => ids[session])).toEqual([
      null,
      null,
      null,
      '{"seq":2}',
    ]);
    expect(store.counts).toMatchObject({ opens: 1, reads: 3, closes: 0 });
  });

  it("reads lines far apart on their own and close ones together, not the bytes between", () => {
    const filler = `{"seq":2,"pad":"${"x".repeat(MAX_GAP_BYTES)}"}`;
    const text = `{"seq":1}\n${filler}\n{"seq":3}\n{"seq":4}\n`;
    const store = fakeStore({ a: text });
    const [first, , third, fourth] = linesOf(1, text);
    expect(
      readEventLines(store.open, [fourth!, first!, third!], (session) => ids[session]),
    ).toEqual(['{"seq":4}', '{"seq":1}', '{"seq":3}']);
    // seq 1 alone, seqs 3 and 4 in one read of their span: the filler between is never read.
    expect(store.counts).toEqual({ opens: 1, reads: 2, closes: 0, bytes: 9 + 19, buffersMade: 0 });
  });
});
