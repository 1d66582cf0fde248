/** Conformance suite: the session_query tool. */
import { uuidv7 } from "@tapedeck/session";
import type { EventLogBuilder } from "@tapedeck/session/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { queryActionSchema, runQueryAction } from "../query-actions";
import type { SessionQueryEngine } from "../query-engine";
import { createSessionQueryTool } from "../tool";
import { build, conversation, type SuiteContext, workspaceA, workspaceB } from "./suite-helpers";

/** Registers the the session_query tool tests. */
export function toolTests(context: SuiteContext): void {
  let engine: SessionQueryEngine;
  const put = (...builders: EventLogBuilder[]) => context.put(...builders);
  beforeEach(() => {
    engine = context.engine;
  });

  describe("session_query tool", () => {
    it("searches, lists, reads and traces within its workspace only", async () => {
      const alpha = build({ workspaceId: workspaceA }).turn().user("tool visible marmot");
      alpha.call("shell", { command: "ls" }).output("marmot.txt").end();
      const beta = conversation("tool hidden marmot", "ok", workspaceB);
      await put(alpha, beta);
      const tool = createSessionQueryTool(engine, { workspaceId: workspaceA });
      expect(tool.name).toBe("session_query");
      expect(tool.parameters.type).toBe("object");
      const search = await tool.execute({ action: "search_events", text: "marmot" });
      expect(search).toContain(alpha.header.sessionId);
      expect(search).not.toContain(beta.header.sessionId);
      const list = await tool.execute({ action: "list_sessions" });
      expect(list).toContain("tool visible marmot");
      expect(list).not.toContain("hidden");
      const read = await tool.execute({
        action: "read_session",
        sessionId: alpha.header.sessionId,
      });
      expect(read).toContain("#2 message/user: tool visible marmot");
      const trace = await tool.execute({
        action: "trace_event",
        sessionId: alpha.header.sessionId,
        seq: 3,
      });
      expect(trace).toContain("cited by: #4 function_call_output (source, depth 1)");
      const lineage = await tool.execute({
        action: "trace_lineage",
        sessionId: alpha.header.sessionId,
      });
      expect(lineage).toContain("forks: none");
    });

    it("cannot be widened by its arguments", async () => {
      const beta = conversation("tool hidden marmot", "ok", workspaceB);
      await put(beta);
      const tool = createSessionQueryTool(engine, { workspaceId: workspaceA });
      const hidden = beta.header.sessionId;
      const missing = uuidv7();
      const readHidden = await tool.execute({ action: "read_session", sessionId: hidden });
      const readMissing = await tool.execute({ action: "read_session", sessionId: missing });
      expect(readHidden).toBe(`Error [SESSION_NOT_FOUND]: Session ${hidden} was not found.`);
      expect(readMissing).toBe(`Error [SESSION_NOT_FOUND]: Session ${missing} was not found.`);
      expect(
        await tool.execute({ action: "search_events", text: "marmot", sessionId: hidden }),
      ).toBe("No matching events.");
      for (const widen of [
        { scope: { all: true } },
        { all: true },
        { workspaceIds: [workspaceB] },
        { workspaceId: workspaceB },
      ]) {
        const answer = await tool.execute({ action: "search_events", text: "marmot", ...widen });
        expect(answer).toMatch(/^Error \[INVALID_QUERY\]/);
      }
      expect(await tool.execute({ action: "list_sessions" })).toBe("No sessions.");
      expect(await tool.execute({ action: "drop_tables" })).toMatch(
        /^Error \[INVALID_QUERY\]: action/,
      );
      expect(await tool.execute("not an object")).toMatch(/^Error \[INVALID_QUERY\]/);
      expect(await tool.execute({ action: "read_session" })).toMatch(/needs `sessionId`/);
      expect(
        await tool.execute({ action: "search_events", types: ["bogus"], text: "marmot" }),
      ).toMatch(/^Error \[INVALID_QUERY\]: Invalid query: query\.types\.0/);
    });

    it("shares its argument schemas and answers with the per-action form (MCP)", async () => {
      const alpha = build({ workspaceId: workspaceA }).turn().user("shared marmot");
      alpha.assistant("found").end();
      await put(alpha);
      const tool = createSessionQueryTool(engine, { workspaceId: workspaceA });
      const scope = { workspaceIds: [workspaceA] };
      const args = { text: "marmot", limit: 5 };
      const answer = await runQueryAction(engine, scope, "search_events", args);
      expect(await tool.execute({ action: "search_events", ...args })).toBe(answer.text);
      expect(answer.data).toMatchObject({
        hits: [{ sessionId: alpha.header.sessionId, seq: 2, type: "message", role: "user" }],
        nextCursor: null,
      });
      const schema = queryActionSchema("search_events");
      expect(schema.safeParse({ text: "x".repeat(2001) }).success).toBe(false);
      expect(schema.safeParse({ text: "ok", action: "search_events" }).success).toBe(false);
      expect(queryActionSchema("read_session").safeParse({}).success).toBe(false);
      expect(queryActionSchema("read_session").safeParse({ sessionId: "x" }).success).toBe(true);
      expect(queryActionSchema("list_sessions").safeParse({ text: "x" }).success).toBe(false);
    });
  });
}
