import type { RunEvent } from "@tapedeck/agent";
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { type AgentRuns, answerOnce, ModelNotConfiguredError } from "./agent-runs";
import { jsonBody, parseInput, toHttpError } from "./http-errors";
import {
  agentOnceBodySchema,
  agentStreamBodySchema,
  approvalBodySchema,
  callIdSchema,
  runIdSchema,
} from "./schemas";
import type { SessionIndex } from "./session-index";

/**
 * The agent routes: `POST /api/agent/stream` (SSE of run events), approvals, cancel, the runs in
 * progress and the stateless `POST /api/agent`.
 */
export function registerAgentRoutes(
  app: Hono,
  { runs, index, model }: { runs: AgentRuns; index: SessionIndex; model: string },
): void {
  app.get("/api/agent/runs", (c) => c.json({ items: runs.list() }));

  app.post("/api/agent/stream", async (c) => {
    const body = parseInput(agentStreamBodySchema, await jsonBody(c), "body");
    let started: Awaited<ReturnType<AgentRuns["start"]>>;
    try {
      started = await runs.start({
        input: body.input,
        policy: { approval: body.policy ?? "ask" },
        ...(body.sessionId === undefined ? {} : { sessionId: body.sessionId }),
        ...(body.forkFrom === undefined
          ? {}
          : {
              forkFrom: {
                sessionId: body.forkFrom.sessionId,
                ...(body.forkFrom.seq === undefined ? {} : { seq: body.forkFrom.seq }),
              },
            }),
      });
    } catch (error) {
      const mapped = toHttpError(error);
      if (
        error instanceof ModelNotConfiguredError ||
        mapped.status === 409 ||
        mapped.status === 400
      ) {
        throw error;
      }
      // Unknown or damaged session: the stream answers with one `error` event; nothing was written.
      return streamSSE(c, async (stream) => {
        await stream.writeSSE({ event: "error", data: JSON.stringify(mapped.body.error) });
      });
    }
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => started.cancel());
      // Events are written in order; the SSE writes are chained so none overtakes another.
      let chain: Promise<void> = Promise.resolve();
      const send = (event: RunEvent) => {
        chain = chain
          .then(() => stream.writeSSE({ event: event.type, data: JSON.stringify(event) }))
          .catch(() => undefined);
      };
      try {
        await started.run(send);
      } catch (error) {
        send({ type: "error", runId: started.runId, ...toHttpError(error).body.error });
      }
      await chain;
      void index.sync().catch(() => undefined);
    });
  });

  app.post("/api/agent/approvals/:runId/:callId", async (c) => {
    const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
    const callId = parseInput(callIdSchema, c.req.param("callId"), "callId");
    const body = parseInput(approvalBodySchema, await jsonBody(c), "body");
    if (!runs.decide(runId, callId, body.decision)) {
      return c.json(
        {
          error: {
            code: "NO_PENDING_APPROVAL",
            message: "No such run or no approval pending for this call.",
          },
        },
        404,
      );
    }
    return c.json({ ok: true });
  });

  app.post("/api/agent/cancel/:runId", (c) => {
    const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
    if (!runs.cancel(runId)) {
      return c.json(
        { error: { code: "NO_SUCH_RUN", message: "No run in progress with this id." } },
        404,
      );
    }
    return c.json({ ok: true });
  });

  app.post("/api/agent", async (c) => {
    const body = parseInput(agentOnceBodySchema, await jsonBody(c), "body");
    const provider = runs.provider();
    const text = await answerOnce(provider, model, body.input, c.req.raw.signal);
    return c.json({ text });
  });
}
