import { fixtureCatalog, fixtureNames, loadFixture } from "@tapedeck/fixtures";
import type { SessionViewData } from "@tapedeck/html-export/render";
import { sessionView } from "@tapedeck/html-export/render";
import { replayLogText, type SessionEvent } from "@tapedeck/session";
import { describe, expect, it } from "vitest";
import { pageOfSession } from "../server/session-pages";
import { LiveSession } from "./live-session";

/** What `GET /api/sessions/:id` answers for the log's first `count` lines after the header. */
function viewOfPrefix(jsonl: string, count: number): SessionViewData {
  const lines = jsonl.trimEnd().split("\n");
  const text = `${lines.slice(0, count + 1).join("\n")}\n`;
  return sessionView(replayLogText(text));
}

const logs = fixtureNames
  .filter((name) => !("parent" in fixtureCatalog[name]))
  .map((name) => loadFixture(name));

function expectSameSession(live: LiveSession, full: SessionViewData) {
  const whole = new LiveSession(full);
  expect(live.rows).toEqual(whole.rows);
  expect(live.events).toEqual(full.events);
  expect([...live.bySeq.keys()]).toEqual(full.events.map((event) => event.seq));
  expect(live.eventCount).toBe(full.eventCount);
  expect(live.usage).toEqual(full.usage);
  expect(live.goal).toBe(full.goal);
  expect(live.lastSeq).toBe(full.lastSeq);
  expect(live.firstPrompt).toBe(whole.firstPrompt);
}

describe("LiveSession", () => {
  it.each(logs.map((log) => [log.name, log] as const))(
    "%s: a view of any prefix plus the streamed rest shows what the whole view shows",
    (_name, log) => {
      const full = viewOfPrefix(log.jsonl, log.events.length);
      for (let count = 0; count <= log.events.length; count++) {
        const rest = log.events.slice(count);
        const oneBatch = new LiveSession(viewOfPrefix(log.jsonl, count));
        expect(oneBatch.append(rest)).toBe(rest.length === 0 ? "unchanged" : "appended");
        expectSameSession(oneBatch, full);
        // One event a message, as a live run delivers them.
        const oneByOne = new LiveSession(viewOfPrefix(log.jsonl, count));
        for (const event of rest) expect(oneByOne.append([event])).toBe("appended");
        expectSameSession(oneByOne, full);
      }
    },
  );

  it.each(logs.map((log) => [log.name, log] as const))(
    "%s: the last page of any prefix, the streamed rest and every earlier page show the whole view",
    (_name, log) => {
      const full = viewOfPrefix(log.jsonl, log.events.length);
      for (const limit of [1, 3, 1000]) {
        for (let count = 0; count <= log.events.length; count++) {
          const lines = log.jsonl.trimEnd().split("\n");
          const prefix = replayLogText(`${lines.slice(0, count + 1).join("\n")}\n`);
          const live = new LiveSession(pageOfSession(prefix, { limit }));
          const rest = log.events.slice(count);
          expect(live.append(rest)).toBe(rest.length === 0 ? "unchanged" : "appended");
          while (live.hasEarlier) {
            const before = { seq: live.firstSeq };
            expect(live.prepend(pageOfSession(prefix, { limit, before }))).toBe("prepended");
          }
          expectSameSession(live, full);
        }
      }
    },
  );

  it("refuses an earlier page that does not end where the held events start", () => {
    const session = replayLogText(loadFixture("simple-chat").jsonl);
    const live = new LiveSession(pageOfSession(session, { limit: 1 }));
    expect(live.hasEarlier).toBe(true);
    const tooEarly = pageOfSession(session, { limit: 1, before: { seq: live.firstSeq - 1 } });
    expect(live.prepend(tooEarly)).toBe("gap");
  });

  it("shows an answer while it streams and replaces it with the message", () => {
    const log = loadFixture("simple-chat");
    const chunkAt = log.events.findIndex((event) => event.type === "assistant/chunk");
    const messageAt = log.events.findIndex(
      (event, index) => index > chunkAt && event.type === "message",
    );
    const live = new LiveSession(viewOfPrefix(log.jsonl, chunkAt));
    const partial = () =>
      live.rows
        .filter((row) => row.kind === "message" && row.partial)
        .map((row) => row.kind === "message" && row.content);
    live.append(log.events.slice(chunkAt, chunkAt + 2));
    const streamed = log.events
      .slice(chunkAt, chunkAt + 2)
      .map((event) =>
        event.type === "assistant/chunk" && "text" in event.delta ? event.delta.text : "",
      )
      .join("");
    expect(partial()).toEqual([streamed]);
    live.append(log.events.slice(chunkAt + 2, messageAt + 1));
    expect(partial()).toEqual([]);
    expect(live.rows.at(-1)).toMatchObject({ kind: "message", role: "assistant", partial: false });
  });

  it("skips events it holds already and refuses a batch that leaves a gap", () => {
    const log = loadFixture("tool-calls");
    const live = new LiveSession(viewOfPrefix(log.jsonl, 5));
    const rows = live.rows;
    expect(live.append(log.events.slice(2, 5))).toBe("unchanged");
    expect(live.rows).toBe(rows);
    expect(live.append(log.events.slice(6, 8))).toBe("gap");
    expect(live.lastSeq).toBe(log.events[4]?.seq);
    expect(live.append(log.events.slice(3, 8))).toBe("appended");
    expect(live.lastSeq).toBe(log.events[7]?.seq);
  });

  it("marks rows replaced by a compaction that arrives later", () => {
    const log = loadFixture("compaction-chain");
    const compactionAt = log.events.findIndex((event) => event.type === "compaction");
    const compaction = log.events[compactionAt] as SessionEvent & { replaces: number[] };
    const live = new LiveSession(viewOfPrefix(log.jsonl, compactionAt));
    const replaced = () =>
      live.rows.filter((row) => "replacedBy" in row && compaction.replaces.includes(row.seq));
    expect(replaced().length).toBeGreaterThan(0);
    expect(replaced().every((row) => "replacedBy" in row && row.replacedBy === null)).toBe(true);
    live.append([compaction]);
    expect(
      replaced().every((row) => "replacedBy" in row && row.replacedBy === compaction.seq),
    ).toBe(true);
  });
});
