/** Conformance suite: scope isolation. */
import { SessionNotFoundError, uuidv7 } from "@tapedeck/session";
import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { exportSession } from "../export";
import type { SessionQueryEngine } from "../query-engine";
import type { QueryEngineHarness } from "./harness";
import {
  all,
  conversation,
  expectError,
  type SuiteContext,
  scopeA,
  scopeB,
  workspaceA,
  workspaceB,
} from "./suite-helpers";

/** Registers the scope isolation tests. */
export function scopeTests(context: SuiteContext): void {
  let harness: QueryEngineHarness;
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    harness = context.harness;
    engine = context.engine;
  });

  describe("scope", () => {
    it("isolates workspaces in lists, searches and reads", async () => {
      const alpha = conversation("secret plans alpha", "ok", workspaceA);
      const beta = conversation("secret plans beta", "ok", workspaceB);
      await put(alpha, beta);
      expect((await engine.listSessions(scopeA)).items.map((s) => s.id)).toEqual([
        alpha.header.sessionId,
      ]);
      expect(
        (await engine.searchSessions(scopeB, { text: "secret" })).items.map((s) => s.id),
      ).toEqual([beta.header.sessionId]);
      const hits = await engine.searchEvents(scopeA, { text: "secret" });
      expect(hits.items.map((h) => h.sessionId)).toEqual([alpha.header.sessionId]);
      const sneaky = await engine.searchEvents(scopeA, {
        text: "secret",
        sessionId: beta.header.sessionId,
      });
      expect(sneaky.items).toEqual([]);
      const both = await engine.listSessions({ workspaceIds: [workspaceA, workspaceB] });
      expect(both.items).toHaveLength(2);
      const nowhere = { workspaceIds: ["/no/such/workspace"] };
      expect((await engine.listSessions(nowhere)).items).toEqual([]);
      expect((await engine.searchEvents(nowhere, { text: "secret" })).items).toEqual([]);
      expect((await engine.searchEvents(nowhere, { types: ["message"] })).items).toEqual([]);
    });

    it("gives cursors that depend only on data in scope (another workspace's activity changes nothing)", async () => {
      await put(
        conversation("needle one", "ok", workspaceA),
        conversation("needle two", "ok", workspaceA),
      );
      const query = { text: "needle", order: "relevance", limit: 1 } as const;
      const before = await engine.searchEvents(scopeA, query);
      expect(before.nextCursor).not.toBeNull();
      // Newer activity elsewhere (each conversation starts later than the last).
      await put(conversation("needle elsewhere", "ok", workspaceB));
      const after = await engine.searchEvents(scopeA, query);
      expect(after.nextCursor).toBe(before.nextCursor);
      // Relevance scores come from the backend's full-text statistics (BM25 over the whole
      // index, a documented limit in architecture/security.md); the hits themselves do not move.
      const withoutScore = (items: typeof before.items) =>
        items.map(({ score: _score, ...rest }) => rest);
      expect(withoutScore(after.items)).toEqual(withoutScore(before.items));
    });

    it("makes an out-of-scope session indistinguishable from a missing one", async () => {
      const beta = conversation("hidden", "ok", workspaceB);
      await put(beta);
      const missing = uuidv7();
      for (const id of [beta.header.sessionId, missing]) {
        for (const call of [
          () => engine.readSession(scopeA, id),
          () => engine.traceEvent(scopeA, id, 1),
          () => engine.traceLineage(scopeA, id),
          () => exportSession(engine, scopeA, id),
        ]) {
          const error = await expectError(call());
          expect(SessionNotFoundError.isInstance(error)).toBe(true);
          expect((error as Error).message).toBe(`Session ${id} was not found.`);
        }
      }
      expect((await engine.readSession(scopeB, beta.header.sessionId)).lastSeq).toBe(5);
    });

    it("forgets a session whose log is gone", async () => {
      const log = conversation("to be trashed", "ok");
      await put(log);
      await harness.remove(log.header.sessionId);
      expect((await engine.listSessions(all)).items).toEqual([]);
      expect((await engine.searchEvents(all, { text: "trashed" })).items).toEqual([]);
      const error = await expectError(engine.readSession(all, log.header.sessionId));
      expect(SessionNotFoundError.isInstance(error)).toBe(true);
    });
  });
}
