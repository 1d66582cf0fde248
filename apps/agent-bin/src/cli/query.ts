import type { SessionEvent } from "@tapedeck/session";
import { createMemoryQueryEngine, type SessionQueryEngine } from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";

/**
 * The query engine over every log in the store. Damaged logs are ingested as far as they read,
 * so they show up as damaged rather than vanish.
 */
export async function openQueryEngine(store: SessionStore): Promise<SessionQueryEngine> {
  const engine = createMemoryQueryEngine();
  for (const listing of await store.list()) {
    const events: SessionEvent[] = [];
    try {
      for await (const read of store.read(listing.sessionId)) events.push(read.event);
    } catch {
      // keep what was read; the engine marks the session damaged when it is read
    }
    engine.ingest(listing.header, events);
  }
  return engine;
}
