/**
 * Type test, run by `pnpm typecheck` (never executed): the client (`hc<ApiRoutes>`) returns exactly
 * what the server's handlers build, and cannot send what the server's validators refuse. If the
 * route types stopped reaching the client (an unchained route, an `any`, a hand-written answer), an
 * assertion or a `@ts-expect-error` here would fail to compile.
 */

import type { EventHit, EventTrace, Lineage, Page } from "@tapedeck/session-query";
import { api, apiClient, type RunStreamEvent } from "../src/client/api";
import type { RunStreamEvents } from "../src/server/agent-routes";
import type { ActiveRunInfo } from "../src/server/agent-runs";
import type { SessionList, SessionPageAnswer } from "../src/server/session-routes";
import type { ShortIdMap } from "../src/server/short-ids";

/** True when `A` and `B` are the same type (not merely assignable). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** True when each of `A` and `B` is assignable to the other (a spread against an intersection). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;
type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

/** What the client reads is what the server's handlers build. */
export type ClientReadsServerAnswers = [
  Expect<Equal<Answer<typeof api.sessionPage>, SessionPageAnswer>>,
  Expect<Equal<Answer<typeof api.sessions>, SessionList>>,
  Expect<Equal<Answer<typeof api.events>, Page<EventHit>>>,
  Expect<Equal<Answer<typeof api.trace>, EventTrace>>,
  Expect<Same<Answer<typeof api.lineage>, Lineage & { shortIds: ShortIdMap }>>,
  Expect<Equal<Answer<typeof api.sessionRun>, { run: ActiveRunInfo | null }>>,
  Expect<Equal<Answer<typeof api.setGoal>, { goal: string | null }>>,
  Expect<Equal<RunStreamEvent["data"], RunStreamEvents[keyof RunStreamEvents]>>,
];

/** What the client may not send, because the server's validators refuse it. Never called. */
export function clientCannotSendWhatTheServerRefuses(signal: AbortSignal): void {
  const session = apiClient.api.sessions[":id"];
  // @ts-expect-error a page is asked for by seq (`before`), not by `after` (strict query)
  void api.sessionPage("s", { after: 1 });
  // @ts-expect-error the fork body has no `at` (the server's schema is strict)
  void session.fork.$post({ param: { id: "s" }, json: { at: 1 } });
  // @ts-expect-error a goal is a string or null
  void session.goal.$put({ param: { id: "s" }, json: { goal: 1 } });
  // @ts-expect-error the goal body is required
  void session.goal.$put({ param: { id: "s" } });
  // @ts-expect-error the trace route needs its `seq` parameter
  void session.events[":seq"].trace.$get({ param: { id: "s" } });
  // @ts-expect-error `running` is not a session status
  void api.sessions({ status: "running" });
  // @ts-expect-error a run needs its input
  void api.startRun({ sessionId: "s" }, signal);
  // @ts-expect-error no such route
  void apiClient.api.sessions[":id"].delete;
}
