import type { SessionEvent, SessionHeader } from "@tapedeck/session";
import type { SessionQueryEngine } from "../query-engine";

/** A backend under test, with a way to put logs where it reads them. */
export interface QueryEngineHarness {
  engine: SessionQueryEngine;
  /**
   * Makes the engine see this log (header and own events), as if the file now held exactly it.
   * Called again for the same session with more events, it behaves like an append.
   */
  write(header: SessionHeader, events: readonly SessionEvent[]): Promise<void>;
  /** The session's log disappears (as when moved to the trash). */
  remove(sessionId: string): Promise<void>;
  /** Releases resources (files, handles). */
  close(): Promise<void>;
}
