import type { SessionIndex } from "@tapedeck/host";
import { setSessionGoal } from "@tapedeck/host";
import { sessionView } from "@tapedeck/html-export/render";
import { type Session, SessionNotFoundError } from "@tapedeck/session";
import { type QueryScope, settleActiveSessions } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";
import type { Hono } from "hono";
import type { z } from "zod";
import type { AnswerOf, ForkAnswer } from "../shared/api-contract";
import { jsonBody, parseInput } from "./http-errors";
import {
  eventsQuerySchema,
  forkBodySchema,
  goalBodySchema,
  seqSchema,
  sessionIdSchema,
  sessionPageQuerySchema,
  sessionQuerySchema,
  sessionsQuerySchema,
} from "./schemas";
import { DEFAULT_PAGE_EVENTS, readPage } from "./session-pages";
import { lineageIds, registerShortIdRoute, shortIdsOf } from "./short-ids";

/** Highlight markers of search snippets: private-use characters the client splits on. */
export const HIGHLIGHT = { open: "\uE000", close: "\uE001" } as const;

const allScope: QueryScope = { all: true };

function scopeFor(workspace: string | undefined): QueryScope {
  return workspace === undefined ? allScope : { workspaceIds: [workspace] };
}

/** `GET /api/sessions`: listed or searched in the index, dead turns settled, short ids added. */
async function listSessions(
  store: SessionStore,
  index: SessionIndex,
  query: z.infer<typeof sessionsQuerySchema>,
) {
  await index.sync();
  const scope = scopeFor(query.workspace);
  const paging = {
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    ...(query.orderBy === undefined ? {} : { orderBy: query.orderBy }),
    ...(query.status === undefined ? {} : { status: query.status }),
  };
  const page =
    query.q !== undefined || query.since !== undefined || query.until !== undefined
      ? await index.engine.searchSessions(scope, {
          ...paging,
          ...(query.q === undefined ? {} : { text: query.q }),
          ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
          ...(query.since === undefined ? {} : { since: query.since }),
          ...(query.until === undefined ? {} : { until: query.until }),
        })
      : await index.engine.listSessions(scope, paging);
  // A turn left open by a process that died is not running: show it as interrupted.
  const items = await settleActiveSessions(
    page.items,
    async (id) => (await store.lockOwner(id)) !== undefined,
  );
  const shown =
    query.status === "active" ? items.filter((item) => item.status === "active") : items;
  // Short ids unique in the home (the host's one rule), accepted back by the CLI.
  const short = await shortIdsOf(
    store,
    shown.map((item) => item.id),
  );
  return {
    ...page,
    items: shown.map((item) => ({ ...item, shortId: short[item.id] ?? item.id })),
  };
}

/** What `GET /api/sessions` answers: a page of sessions, each with its short id. */
export type SessionList = Awaited<ReturnType<typeof listSessions>>;

type SessionPageQuery = z.infer<typeof sessionPageQuerySchema>;

/** A session's last page as `GET /api/sessions/:id/page` answers it (what the page opens with). */
export type SessionPageReader = (id: string) => Promise<AnswerOf<"GET /api/sessions/:id/page">>;

/**
 * The session routes: list and search sessions and events, workspaces, one session, trace,
 * lineage, JSONL and HTML export, goal and fork. Reads go to the index (synced first) or, for one
 * session, to its file. Returns the reader of a session's first page (the page's first view).
 */
export function registerSessionRoutes(
  app: Hono,
  { store, index }: { store: SessionStore; index: SessionIndex },
): SessionPageReader {
  registerShortIdRoute(app, store);
  app.get("/api/sessions", async (c) =>
    c.json(
      await listSessions(store, index, parseInput(sessionsQuerySchema, c.req.query(), "query")),
    ),
  );

  app.get("/api/workspaces", async (c) => {
    // A team index counts every machine's sessions, like the other routes list them.
    const counts = new Map<string, number>();
    if (index.workspaces !== undefined) {
      for (const { id, sessions } of await index.workspaces()) counts.set(id, sessions);
    } else {
      for (const listing of await store.list()) {
        counts.set(listing.header.workspaceId, (counts.get(listing.header.workspaceId) ?? 0) + 1);
      }
    }
    return c.json({
      items: [...counts]
        .map(([id, sessions]) => ({ id, sessions }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    } satisfies AnswerOf<"GET /api/workspaces">);
  });

  /**
   * A session from its log, or — logged on another machine of a team index — from the index,
   * which replays it through the same invariants.
   */
  const readSession = async (id: string): Promise<Session> => {
    try {
      return await store.readSession(id);
    } catch (error) {
      if (!SessionNotFoundError.isInstance(error)) throw error;
      return index.engine.readSession(allScope, id);
    }
  };

  app.get("/api/sessions/:id", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Read from the file itself: always current, and damage comes with its line and offset.
    const session = await readSession(id);
    const chunks = parseInput(sessionQuerySchema, c.req.query(), "query").chunks === "true";
    const parent = session.header.parent?.sessionId;
    const shortIds = await shortIdsOf(store, parent === undefined ? [id] : [id, parent]);
    return c.json({
      ...sessionView(session, { chunks }),
      shortIds,
    } satisfies AnswerOf<"GET /api/sessions/:id">);
  });

  /** A page of a session with the short ids it names (the route's answer). */
  const pageAnswer = async (id: string, query: SessionPageQuery) => {
    const page = await readPage(
      { store, index },
      id,
      {
        limit: query.limit ?? DEFAULT_PAGE_EVENTS,
        before:
          query.before === undefined
            ? undefined
            : { seq: query.before, offset: query.beforeOffset },
        from: query.from,
      },
      readSession,
    );
    const parent = page.header.parent?.sessionId;
    const shortIds = await shortIdsOf(store, parent === undefined ? [id] : [id, parent]);
    return { ...page, shortIds } satisfies AnswerOf<"GET /api/sessions/:id/page">;
  };

  app.get("/api/sessions/:id/page", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    return c.json(await pageAnswer(id, parseInput(sessionPageQuerySchema, c.req.query(), "query")));
  });

  app.get("/api/events", async (c) => {
    const query = parseInput(eventsQuerySchema, c.req.query(), "query");
    await index.sync();
    const page = await index.engine.searchEvents(scopeFor(query.workspace), {
      highlight: HIGHLIGHT,
      ...(query.q === undefined ? {} : { text: query.q }),
      ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
      ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
      ...(query.types === undefined ? {} : { types: query.types }),
      ...(query.roles === undefined ? {} : { roles: query.roles }),
      ...(query.tool === undefined ? {} : { toolName: query.tool }),
      ...(query.callId === undefined ? {} : { callId: query.callId }),
      ...(query.since === undefined ? {} : { since: query.since }),
      ...(query.until === undefined ? {} : { until: query.until }),
      ...(query.currentOnly === undefined ? {} : { currentOnly: query.currentOnly === "true" }),
      ...(query.order === undefined ? {} : { order: query.order }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json(page satisfies AnswerOf<"GET /api/events">);
  });

  app.get("/api/sessions/:id/events/:seq/trace", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const seq = parseInput(seqSchema, c.req.param("seq"), "seq");
    await index.sync();
    const trace = await index.engine.traceEvent(allScope, id, seq);
    return c.json(trace satisfies AnswerOf<"GET /api/sessions/:id/events/:seq/trace">);
  });

  app.get("/api/sessions/:id/lineage", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    await index.sync();
    const lineage = await index.engine.traceLineage(allScope, id);
    const shortIds = await shortIdsOf(store, lineageIds(lineage));
    return c.json({ ...lineage, shortIds } satisfies AnswerOf<"GET /api/sessions/:id/lineage">);
  });

  app.get("/api/sessions/:id/export", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Replayed from the file itself (an index may hold only the readable prefix of a damaged
    // log): a damaged log throws (422) and nothing is sent. Same format as `exportSession`:
    // header, then every event with a fork's parent prefix inlined.
    const session = await readSession(id);
    const jsonl = `${[session.header, ...session.events].map((line) => JSON.stringify(line)).join("\n")}\n`;
    return c.body(jsonl, 200, {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${id}.jsonl"`,
    });
  });

  app.get("/api/sessions/:id/export/html", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    // Same source as the JSONL export (the file, replay-validated: damaged → 422, nothing sent).
    const session = await store.readSession(id);
    await index.sync();
    const lineage = await index.engine.traceLineage(allScope, id).catch(() => null);
    // React's server renderer is only needed here: loaded on the first export.
    const { renderSessionHtml } = await import("@tapedeck/html-export");
    const parent = session.header.parent?.sessionId;
    const shortIds = await shortIdsOf(store, [
      id,
      ...(parent === undefined ? [] : [parent]),
      ...(lineage === null ? [] : lineageIds(lineage)),
    ]);
    return c.body(renderSessionHtml({ session, lineage, shortIds }), 200, {
      "content-type": "text/html; charset=utf-8",
      "content-disposition": `attachment; filename="${id}.html"`,
    });
  });

  app.put("/api/sessions/:id/goal", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const body = parseInput(goalBodySchema, await jsonBody(c), "body");
    // The same operation as the CLI's --goal and ACP's /goal; busy while a run holds the log (409).
    await setSessionGoal(store, id, body.goal);
    await index.sync();
    return c.json({ goal: body.goal } satisfies AnswerOf<"PUT /api/sessions/:id/goal">);
  });

  app.post("/api/sessions/:id/fork", async (c) => {
    const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
    const body = parseInput(forkBodySchema, await jsonBody(c), "body");
    const forked = await store.fork(id, body.seq === undefined ? {} : { atSeq: body.seq });
    await index.sync();
    const answer: ForkAnswer = { sessionId: forked.sessionId, parent: forked.header.parent };
    return c.json(answer, 201);
  });
  return (id) => pageAnswer(id, {});
}
