/**
 * Type test, run by `pnpm typecheck` (never executed): the client's calls return exactly what the
 * server's handlers return, and the client cannot send what the server's schemas refuse. If the
 * contract loosened (an `any`, a hand-written answer), an assertion or a `@ts-expect-error` here
 * would fail to compile.
 */

import type { SessionViewData, sessionView } from "@tapedeck/html-export/render";
import type { EventHit, EventTrace, Lineage, Page } from "@tapedeck/session-query";
import type { z } from "zod";
import { api, openSse, request } from "../src/client/api";
import type { ActiveRunInfo } from "../src/server/agent-runs";
import type * as schemas from "../src/server/schemas";
import type { SessionPage } from "../src/server/session-pages";
import type { SessionList } from "../src/server/session-routes";
import type { ShortIdMap } from "../src/server/short-ids";

/** True when `A` and `B` are the same type (not merely assignable). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

/** What the client reads is what the server's handlers build. */
export type ClientReadsServerAnswers = [
  Expect<Equal<Answer<typeof api.sessionPage>, SessionPage & { shortIds: ShortIdMap }>>,
  Expect<Equal<SessionViewData, ReturnType<typeof sessionView>>>,
  Expect<Equal<Answer<typeof api.sessions>, SessionList>>,
  Expect<Equal<Answer<typeof api.events>, Page<EventHit>>>,
  Expect<Equal<Answer<typeof api.trace>, EventTrace>>,
  Expect<Equal<Answer<typeof api.lineage>, Lineage & { shortIds: ShortIdMap }>>,
  Expect<Equal<Answer<typeof api.sessionRun>, { run: ActiveRunInfo | null }>>,
  Expect<Equal<Answer<typeof api.setGoal>, z.output<typeof schemas.goalBodySchema>>>,
];

/** What the client may not send, because the server's schemas refuse it. Never called. */
export function clientCannotSendWhatTheServerRefuses(signal: AbortSignal): void {
  // @ts-expect-error a page is asked for by seq (`before`), not by `after` (strict query)
  void api.sessionPage("s", { after: 1 });
  // @ts-expect-error the fork body has no `at` (the server's schema is strict)
  void request("POST /api/sessions/:id/fork", { params: { id: "s" }, body: { at: 1 } });
  // @ts-expect-error a goal is a string or null
  void request("PUT /api/sessions/:id/goal", { params: { id: "s" }, body: { goal: 1 } });
  // @ts-expect-error the goal body is required
  void request("PUT /api/sessions/:id/goal", { params: { id: "s" } });
  // @ts-expect-error the trace route needs its `seq` parameter
  void request("GET /api/sessions/:id/events/:seq/trace", { params: { id: "s" } });
  // @ts-expect-error `running` is not a session status
  void api.sessions({ status: "running" });
  // @ts-expect-error a run needs its input
  void openSse(signal, "POST /api/agent/stream", { body: { sessionId: "s" } });
  // @ts-expect-error the export is a download, not JSON
  void request("GET /api/sessions/:id/export", { params: { id: "s" } });
}
