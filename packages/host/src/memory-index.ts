import { EventLogCorruptError, type SessionEvent, SessionNotFoundError } from "@tapedeck/session";
import {
  createMemoryQueryEngine,
  type MemoryQueryEngine,
  type SessionQueryEngine,
} from "@tapedeck/session-query";
import type { SessionStore } from "@tapedeck/session-store";

/**
 * A query engine kept in step with the logs on disk. The viewer calls `sync()` at start, before
 * reads that must be fresh, and on every tick of the live watcher; the CLI before each query when
 * the SQLite index cannot be used (a read-only or full home).
 */
export interface SessionIndex {
  readonly engine: SessionQueryEngine;
  /**
   * Ingests what changed in the logs since the last call. Concurrent calls share one pass.
   * Never throws for a damaged log (the engine reports it as `damaged`).
   */
  sync(): Promise<void>;
  /**
   * Sessions per workspace, when the index holds sessions the home has no log of (the team
   * index: every machine's). Absent: the viewer counts the home's logs.
   */
  workspaces?(): Promise<{ id: string; sessions: number }[]>;
}

/** Size and modification time of one log file. */
export interface LogFileState {
  size: number;
  mtimeMs: number;
}

/** The store's logs (as its `scan()` sees them) with their size and mtime. */
export async function scanLogFiles(store: SessionStore): Promise<Map<string, LogFileState>> {
  const files = new Map<string, LogFileState>();
  for (const log of (await store.scan()).logs) {
    files.set(log.sessionId, { size: log.size, mtimeMs: log.modifiedMs });
  }
  return files;
}

/** Runs `task` once at a time; callers arriving while it runs share the next pass. */
export function coalesce(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const run = (): Promise<void> => {
    running = task().finally(() => {
      running = null;
    });
    return running;
  };
  return () => {
    if (running === null) return run();
    if (queued === null) {
      queued = running
        .catch(() => undefined)
        .then(() => {
          queued = null;
          return run();
        });
    }
    return queued;
  };
}

/**
 * An in-memory index over a store: each sync re-reads the logs whose size or mtime changed and
 * forgets the ones that are gone. Writes nothing. Right for tests, small homes and a home that
 * cannot be written; `pnpm start` and the CLI use SQLite otherwise.
 */
export function createMemoryIndex(
  store: SessionStore,
): SessionIndex & { engine: MemoryQueryEngine } {
  const engine = createMemoryQueryEngine();
  const known = new Map<string, LogFileState>();

  const ingestOne = async (sessionId: string): Promise<void> => {
    let header: Awaited<ReturnType<SessionStore["readHeader"]>>;
    try {
      header = await store.readHeader(sessionId);
    } catch {
      engine.remove(sessionId);
      return;
    }
    const events: SessionEvent[] = [];
    try {
      for await (const read of store.read(sessionId)) events.push(read.event);
    } catch (error) {
      // A damaged line stops the read; the prefix is still worth listing and searching. Opening the
      // session replays the file and answers 422 with the damage.
      if (SessionNotFoundError.isInstance(error)) {
        engine.remove(sessionId);
        return;
      }
      if (!EventLogCorruptError.isInstance(error)) throw error;
    }
    engine.ingest(header, events);
  };

  const sync = coalesce(async () => {
    const files = await scanLogFiles(store);
    for (const id of known.keys()) {
      if (!files.has(id)) {
        known.delete(id);
        engine.remove(id);
      }
    }
    // Parents first, so that a fork's parent prefix is there when the fork is read.
    for (const [id, state] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
      const before = known.get(id);
      if (before !== undefined && before.size === state.size && before.mtimeMs === state.mtimeMs) {
        continue;
      }
      known.set(id, state);
      await ingestOne(id);
    }
  });

  return { engine, sync };
}
