import type { RunEvent } from "@tapedeck/host";
import { ModelNotConfiguredError } from "@tapedeck/host";
import { type Context, Hono } from "hono";
import { answerOnce, type IndexedRunEvent, type ServerRuns } from "./agent-runs";
import { eventStream } from "./event-stream";
import { type ErrorBody, parseInput, toHttpError } from "./http-errors";
import { answer, jsonInput, queryInput } from "./route-input";
import {
  agentOnceBodySchema,
  agentStreamBodySchema,
  approvalBodySchema,
  callIdSchema,
  runEventsQuerySchema,
  runIdSchema,
  sessionIdSchema,
} from "./schemas";

/**
 * What a run's stream sends (`POST /api/agent/stream`, `GET /api/agent/runs/:runId/events`): each
 * run event under its `type`.
 */
export type RunStreamEvents = {
  [E in RunEvent as E["type"] extends "error" ? never : E["type"]]: E;
} & {
  /**
   * The run failed (a run event), or could not start (unknown or damaged session) or has ended
   * (`NO_SUCH_RUN`): an error body, without `type` and `runId`.
   */
  error: Extract<RunEvent, { type: "error" }> | ErrorBody["error"];
};

const noSuchRun = {
  error: { code: "NO_SUCH_RUN", message: "No run in progress with this id." },
} as const;

/**
 * Streams a run's events after index `after` as SSE (`id:` = the event's index), then live ones,
 * until the run ends or the client goes away. Going away detaches; it never cancels the run.
 */
function followRun(c: Context, runs: ServerRuns, runId: string, after: number) {
  return eventStream<RunStreamEvents>(c, async (send, stream) => {
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
      await send("error", noSuchRun.error);
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
          await send(next.event.type, next.event, String(next.index));
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
export function agentRoutes({ runs }: { runs: ServerRuns }) {
  return new Hono()
    .get("/api/agent/runs", (c) => answer(c, { items: runs.list() }))
    .get("/api/sessions/:id/run", (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      return answer(c, { run: runs.ofSession(id) ?? null });
    })
    .get("/api/agent/runs/:runId/events", queryInput(runEventsQuerySchema), (c) => {
      const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
      const query = c.req.valid("query");
      const lastEventId = c.req.header("last-event-id");
      const after =
        query.after ??
        (lastEventId === undefined
          ? -1
          : parseInput(runEventsQuerySchema.shape.after, lastEventId, "Last-Event-ID"));
      if (!runs.has(runId)) return c.json(noSuchRun, 404);
      return followRun(c, runs, runId, after ?? -1);
    })
    .post("/api/agent/stream", jsonInput(agentStreamBodySchema), async (c) => {
      const body = c.req.valid("json");
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
        return eventStream<RunStreamEvents>(c, (send) => send("error", mapped.body.error));
      }
      return followRun(c, runs, started.runId, -1);
    })
    .post("/api/agent/approvals/:runId/:callId", jsonInput(approvalBodySchema), async (c) => {
      const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
      const callId = parseInput(callIdSchema, c.req.param("callId"), "callId");
      const body = c.req.valid("json");
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
      return answer(c, { ok: true as const });
    })
    .post("/api/agent/cancel/:runId", (c) => {
      const runId = parseInput(runIdSchema, c.req.param("runId"), "runId");
      if (!runs.cancel(runId)) return c.json(noSuchRun, 404);
      return answer(c, { ok: true as const });
    })
    .post("/api/agent", jsonInput(agentOnceBodySchema), async (c) => {
      const body = c.req.valid("json");
      const provider = runs.provider();
      const text = await answerOnce(provider, runs.model, body.input, c.req.raw.signal);
      return answer(c, { text });
    });
}
