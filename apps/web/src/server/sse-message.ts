import type { EventsOf, SseRoute } from "../shared/api-contract";

/**
 * One server-sent event of route `route`, its data checked against the API contract
 * (`shared/api-contract.ts`): a handler cannot send an event the client does not expect.
 */
export function sseMessage<R extends SseRoute, E extends keyof EventsOf<R> & string>(
  _route: R,
  event: E,
  data: EventsOf<R>[E],
): { event: E; data: string } {
  return { event, data: JSON.stringify(data) };
}
