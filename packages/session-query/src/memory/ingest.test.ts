import { EventLogCorruptError, type SessionHeader } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import { createMemoryQueryEngine } from "./memory-engine";

describe("createMemoryQueryEngine().ingest", () => {
  it("refuses a header or event that is not a log line", () => {
    const engine = createMemoryQueryEngine();
    const log = eventLogBuilder().turn().user("x").end();
    const badHeader = { ...log.header, version: 2 } as unknown as SessionHeader;
    expect(() => engine.ingest(badHeader, log.events)).toThrow(EventLogCorruptError);
    const badEvent = { ...log.events[0]!, type: "bogus" } as never;
    expect(() => engine.ingest(log.header, [badEvent])).toThrow(/unknown event type/);
  });

  it("copies what it is given", async () => {
    const engine = createMemoryQueryEngine();
    const log = eventLogBuilder().turn().user("original").end();
    engine.ingest(log.header, log.events);
    (log.events[1] as { content: string }).content = "mutated";
    const hits = await engine.searchEvents({ all: true }, { text: "original" });
    expect(hits.items).toHaveLength(1);
  });
});
