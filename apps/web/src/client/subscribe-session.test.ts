import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { subscribeSession } from "./api";

/** A stand-in for the browser's EventSource: records what the page opens and lets a test fire. */
class FakeEventSource {
  static opened: FakeEventSource[] = [];
  readonly url: string;
  closed = false;
  onerror: (() => void) | null = null;
  readonly listeners = new Map<string, (message: { data: string }) => void>();
  constructor(url: string) {
    this.url = url;
    FakeEventSource.opened.push(this);
  }
  addEventListener(name: string, listener: (message: { data: string }) => void) {
    this.listeners.set(name, listener);
  }
  emit(name: string, data = "{}") {
    this.listeners.get(name)?.({ data });
  }
  close() {
    this.closed = true;
  }
}

beforeEach(() => {
  FakeEventSource.opened = [];
  vi.useFakeTimers();
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("sessionStorage", { getItem: () => null });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const id = "01900000-0000-7000-8000-000000000001";
const last = () => FakeEventSource.opened.at(-1);

describe("subscribeSession", () => {
  it("reconnects after the last seq received, never from the first URL", () => {
    const received: number[] = [];
    const close = subscribeSession(id, 4, (events) => received.push(...events.map((e) => e.seq)));
    expect(last()?.url).toBe(`/api/sessions/${id}/stream?after=4`);
    last()?.emit("events", JSON.stringify({ events: [{ seq: 5 }, { seq: 6 }] }));
    last()?.onerror?.();
    vi.advanceTimersByTime(1000);
    expect(last()?.url).toBe(`/api/sessions/${id}/stream?after=6`);
    expect(received).toEqual([5, 6]);
    close();
  });

  it("waits longer after each failure to open (up to 30 s), and 1 s again once a stream opened", () => {
    const close = subscribeSession(id, 0, () => undefined);
    const waits: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      const count = FakeEventSource.opened.length;
      last()?.onerror?.();
      let waited = 0;
      while (FakeEventSource.opened.length === count) {
        vi.advanceTimersByTime(500);
        waited += 500;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    last()?.emit("ready");
    last()?.onerror?.();
    vi.advanceTimersByTime(1000);
    expect(FakeEventSource.opened).toHaveLength(9);
    close();
    expect(last()?.closed).toBe(true);
    last()?.onerror?.();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.opened).toHaveLength(9);
  });
});
