import { ModelNotConfiguredError } from "@tapedeck/host";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { AnswerOf } from "../shared/api-contract";
import { answerOnce, type IndexedRunEvent, type ServerRuns } from "./agent-runs";
import { jsonBody, parseInput, toHttpError } from "./http-errors";
import {
  agentOnceBodySchema,
  agentStreamBodySchema,
  approvalBodySchema,
  callIdSchema,
  runEventsQuerySchema,
  runIdSchema,
  sessionIdSchema,
} from "./schemas";
import { sseMessage } from "./sse-message";

/** The route whose events `followRun` sends (`POST /api/agent/stream` sends the same ones). */
const runEvents = "GET /api/agent/runs/:runId/events";

const noSuchRun = {
  error: { code: "NO_SUCH_RUN", message: "No run in progress with this id." },
} as const;

/**
 * Streams a run's events after index `after` as SSE (`id:` = the event's index), then live ones,
 * until the run ends or the client goes away. Going away detaches; it never cancels the run.
 */
function followRun(c: Context, runs: ServerRuns, runId: string, after: number): Response {
  return streamSSE(c, async (stream) => {
    const queue: IndexedRunEvent[] = [];
    let wake: (() => void) | null = null;
    let open = true;
    const attachment = runs.attach(runId, after, {
      event: (item) => {
        queue.push(item);
        wake?.();
      },
      end: () => wake?.(),
    });
    if (attachment === undefined) {
      await stream.writeSSE(sseMessage(runEvents, "error", noSuchRun.error));
      return;
    }
    queue.unshift(...attachment.backlog);
    stream.onAbort(() => {
      open = false;
      wake?.();
    });
    try {
      while (open) {
        const next = queue.shift();
        if (next !== undefined) {
          await stream.writeSSE({
            id: String(next.index),
            ...sseMessage(runEvents, next.event.type, next.event),
          });
          continue;
        }
        if (attachment.ended()) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          // A comment line every 15 s keeps proxies from closing a stream waiting for a person.
          setTimeout(resolve, 15_000).unref();
        });
        wake = null;
        if (open && queue.length === 0 && !attachment.ended())
          await stream.write(": keep-alive\n\n");
      }
    } finally {
      attachment.detach();
    }
  });
}

/**
 * The agent routes: `POST /api/agent/stream` (start a run, SSE of its events), re-attaching to a
 * run (`GET /api/agent/runs/:runId/events`, `GET /api/sessions/:id/run`), approvals, cancel, the
 * runs in progress and the stateless `POST /api/agent`. See `architecture/web-runs.md`.
 */
export function registerAgentRoutes(app: Hono, { runs }: { runs: ServerRuns }): void {
  app.get("/api/agent/runs", (c) =>
    c.json({ items: runs.list() } satisfies AnswerOf<"GET /api/agent/runs">),
  );

  app.get("/api/sessions/:id/run", (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    return c.json({
      run: runs.ofSession(id) ?? null,
    } satisfies AnswerOf<"GET /api/sessions/:id/run">);
  });

  app.get("/api/agent/runs/:runId/events", (c) => {
    const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
    const query = parseInput(runEventsQuerySchema, c.req.query(), "query");
    const lastEventId = c.req.header("last-event-id");
    const after =
      query.after ??
      (lastEventId === undefined
        ? -1
        : parseInput(runEventsQuerySchema.shape.after, lastEventId, "Last-Event-ID"));
    if (!runs.has(runId)) return c.json(noSuchRun, 404);
    return followRun(c, runs, runId, after ?? -1);
  });

  app.post("/api/agent/stream", async (c) => {
    const body = parseInput(agentStreamBodySchema, await jsonBody(c), "body");
    let started: { runId: string };
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
        ModelNotConfiguredError.isInstance(error) ||
        mapped.status === 409 ||
        mapped.status === 400
      ) {
        throw error;
      }
      // Unknown or damaged session: the stream answers with one `error` event; nothing was written.
      return streamSSE(c, async (stream) => {
        await stream.writeSSE(sseMessage("POST /api/agent/stream", "error", mapped.body.error));
      });
    }
    return followRun(c, runs, started.runId, -1);
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
    return c.json({ ok: true } satisfies AnswerOf<"POST /api/agent/approvals/:runId/:callId">);
  });

  app.post("/api/agent/cancel/:runId", (c) => {
    const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
    if (!runs.cancel(runId)) return c.json(noSuchRun, 404);
    return c.json({ ok: true } satisfies AnswerOf<"POST /api/agent/cancel/:runId">);
  });

  app.post("/api/agent", async (c) => {
    const body = parseInput(agentOnceBodySchema, await jsonBody(c), "body");
    const provider = runs.provider();
    const text = await answerOnce(provider, runs.model, body.input, c.req.raw.signal);
    return c.json({ text } satisfies AnswerOf<"POST /api/agent">);
  });
}
