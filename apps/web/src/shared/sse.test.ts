import { describe, expect, it } from "vitest";
import { readSse, type SseMessage } from "./sse";

/** A body that delivers `chunks` one read at a time, and says whether it was cancelled. */
function body(chunks: readonly (string | Uint8Array)[]) {
  const encoder = new TextEncoder();
  const state = { cancelled: false };
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

async function all(chunks: readonly (string | Uint8Array)[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(body(chunks).stream)) messages.push(message);
  return messages;
}

describe("readSse", () => {
  it("reads named events and defaults the name to message", async () => {
    expect(await all(["event: ready\ndata: {}\n\n", 'data: {"a":1}\n\n'])).toEqual([
      { event: "ready", data: "{}" },
      { event: "message", data: '{"a":1}' },
    ]);
  });

  it("joins an event split across chunks, even inside a line or a UTF-8 character", async () => {
    const bytes = new TextEncoder().encode("event: text\ndata: 茶壶\n\n");
    const cut = bytes.indexOf(0xe8) + 1; // inside the first character of 茶
    expect(await all([bytes.slice(0, 4), bytes.slice(4, cut), bytes.slice(cut)])).toEqual([
      { event: "text", data: "茶壶" },
    ]);
  });

  it("joins multi-line data with newlines and accepts CRLF and CR line ends", async () => {
    expect(
      await all(["data: one\r\ndata: two\r\n\r\n", "event: x\rdata:three\r\r", "data:  four\n\n"]),
    ).toEqual([
      { event: "message", data: "one\ntwo" },
      { event: "x", data: "three" },
      // Only the one space after the colon belongs to the syntax.
      { event: "message", data: " four" },
    ]);
  });

  it("skips comments (keep-alives) and events without data", async () => {
    expect(await all([": keep-alive\n\n", "event: empty\n\n", "data: kept\n\n"])).toEqual([
      { event: "message", data: "kept" },
    ]);
  });

  it("does not dispatch an event the stream ends in the middle of", async () => {
    expect(await all(["data: whole\n\n", "data: cut"])).toEqual([
      { event: "message", data: "whole" },
    ]);
  });

  it("cancels the body when the reader stops early", async () => {
    const { stream, state } = body(["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
    for await (const message of readSse(stream)) {
      expect(message.data).toBe("1");
      break;
    }
    // The cancel travels back through the decoding pipes to the body.
    await expect.poll(() => state.cancelled, { timeout: 1000 }).toBe(true);
  });
});
