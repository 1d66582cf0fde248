import type { SessionIndex } from "@tapedeck/host";
import { setSessionGoal } from "@tapedeck/host";
import { sessionView } from "@tapedeck/html-export/render";
import { type Session, SessionNotFoundError } from "@tapedeck/session";
import { type QueryScope, settleActiveSessions } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import type { z } from "zod";
import { parseInput } from "./http-errors";
import { answer, jsonInput, queryInput } from "./route-input";
import {
  blobHashSchema,
  blobQuerySchema,
  eventsQuerySchema,
  forkBodySchema,
  goalBodySchema,
  seqSchema,
  sessionIdSchema,
  sessionPageQuerySchema,
  sessionQuerySchema,
  sessionsQuerySchema,
} from "./schemas";
import { DEFAULT_PAGE_EVENTS, readPage, type SessionPage } from "./session-pages";
import { lineageIds, type ShortIdMap, shortIdRoutes, shortIdsOf } from "./short-ids";

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

/** What the session routes read: the store (logs) and the index. */
export interface SessionRouteDeps {
  store: SessionStore;
  index: SessionIndex;
}

/**
 * A session from its log, or — logged on another machine of a team index — from the index,
 * which replays it through the same invariants.
 */
async function readSession({ store, index }: SessionRouteDeps, id: string): Promise<Session> {
  try {
    return await store.readSession(id);
  } catch (error) {
    if (!SessionNotFoundError.isInstance(error)) throw error;
    return index.engine.readSession(allScope, id);
  }
}

/** What `GET /api/sessions/:id/page` answers: a page of a session with the short ids it names. */
export type SessionPageAnswer = SessionPage & { shortIds: ShortIdMap };

async function pageAnswer(
  deps: SessionRouteDeps,
  id: string,
  query: SessionPageQuery,
): Promise<SessionPageAnswer> {
  const page = await readPage(
    deps,
    id,
    {
      limit: query.limit ?? DEFAULT_PAGE_EVENTS,
      before:
        query.before === undefined ? undefined : { seq: query.before, offset: query.beforeOffset },
      from: query.from,
    },
    (sessionId) => readSession(deps, sessionId),
  );
  const parent = page.header.parent?.sessionId;
  const shortIds = await shortIdsOf(deps.store, parent === undefined ? [id] : [id, parent]);
  return { ...page, shortIds };
}

/** A session's last page as `GET /api/sessions/:id/page` answers it (what the page opens with). */
export type SessionPageReader = (id: string) => Promise<SessionPageAnswer>;

/** The reader of a session's first page (the page's first view, `page.ts`). */
export function firstPageReader(deps: SessionRouteDeps): SessionPageReader {
  return (id) => pageAnswer(deps, id, {});
}

/** `GET /api/workspaces`: sessions per workspace (a team index counts every machine's). */
async function workspaceCounts({ store, index }: SessionRouteDeps) {
  const counts = new Map<string, number>();
  if (index.workspaces !== undefined) {
    for (const { id, sessions } of await index.workspaces()) counts.set(id, sessions);
  } else {
    for (const listing of await store.list()) {
      counts.set(listing.header.workspaceId, (counts.get(listing.header.workspaceId) ?? 0) + 1);
    }
  }
  return [...counts]
    .map(([id, sessions]) => ({ id, sessions }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The session routes: list and search sessions and events, workspaces, one session, trace,
 * lineage, JSONL and HTML export, goal and fork. Reads go to the index (synced first) or, for one
 * session, to its file. Chained, so that their types reach the client (`client/api.ts`).
 */
export function sessionRoutes(deps: SessionRouteDeps) {
  const { store, index } = deps;
  return new Hono()
    .route("/", shortIdRoutes(store))
    .get("/api/sessions", queryInput(sessionsQuerySchema), async (c) =>
      answer(c, await listSessions(store, index, c.req.valid("query"))),
    )
    .get("/api/workspaces", async (c) => answer(c, { items: await workspaceCounts(deps) }))
    .get("/api/sessions/:id", queryInput(sessionQuerySchema), async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      // Read from the file itself: always current, and damage comes with its line and offset.
      const session = await readSession(deps, id);
      const chunks = c.req.valid("query").chunks === "true";
      const parent = session.header.parent?.sessionId;
      const shortIds = await shortIdsOf(store, parent === undefined ? [id] : [id, parent]);
      return answer(c, { ...sessionView(session, { chunks }), shortIds });
    })
    .get("/api/sessions/:id/page", queryInput(sessionPageQuerySchema), async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      return answer(c, await pageAnswer(deps, id, c.req.valid("query")));
    })
    .get("/api/events", queryInput(eventsQuerySchema), async (c) => {
      const query = c.req.valid("query");
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
      return answer(c, page);
    })
    .get("/api/sessions/:id/events/:seq/trace", async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      const seq = parseInput(seqSchema, c.req.param("seq"), "seq");
      await index.sync();
      const trace = await index.engine.traceEvent(allScope, id, seq);
      return answer(c, trace);
    })
    .get("/api/sessions/:id/lineage", async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      await index.sync();
      const lineage = await index.engine.traceLineage(allScope, id);
      const shortIds = await shortIdsOf(store, lineageIds(lineage));
      return answer(c, { ...lineage, shortIds });
    })
    .get("/api/sessions/:id/export", async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      // Replayed from the file itself (an index may hold only the readable prefix of a damaged
      // log): a damaged log throws (422) and nothing is sent. Same format as `exportSession`:
      // header, then every event with a fork's parent prefix inlined.
      const session = await readSession(deps, id);
      const jsonl = `${[session.header, ...session.events].map((line) => JSON.stringify(line)).join("\n")}\n`;
      return c.body(jsonl, 200, {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${id}.jsonl"`,
      });
    })
    .get("/api/blobs/:hash", (c) => {
      // An attachment (an imported image), read from this machine's blob store, hash checked.
      const hash = parseInput(blobHashSchema, c.req.param("hash"), "hash");
      const { type } = parseInput(blobQuerySchema, c.req.query(), "query");
      const data = store.readBlob(hash);
      return c.body(new Uint8Array(data), 200, {
        "content-type": type ?? "application/octet-stream",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'",
        // Named by its content: it never changes.
        "cache-control": "private, max-age=31536000, immutable",
      });
    })
    .get("/api/sessions/:id/export/html", async (c) => {
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
      const readBlob = (hash: string) => store.readBlob(hash);
      return c.body(renderSessionHtml({ session, lineage, shortIds, readBlob }), 200, {
        "content-type": "text/html; charset=utf-8",
        "content-disposition": `attachment; filename="${id}.html"`,
      });
    })
    .put("/api/sessions/:id/goal", jsonInput(goalBodySchema), async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      const body = c.req.valid("json");
      // The same operation as the CLI's --goal and ACP's /goal; busy while a run holds the log (409).
      await setSessionGoal(store, id, body.goal);
      await index.sync();
      return answer(c, { goal: body.goal });
    })
    .post("/api/sessions/:id/fork", jsonInput(forkBodySchema), async (c) => {
      const id = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      const body = c.req.valid("json");
      const forked = await store.fork(id, body.seq === undefined ? {} : { atSeq: body.seq });
      await index.sync();
      return answer(c, { sessionId: forked.sessionId, parent: forked.header.parent }, 201);
    });
}
