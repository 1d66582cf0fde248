/**
 * The viewer's "Storage": the same figures as `tapedeck storage` (bytes by kind, what
 * `storage compact` would save), from the same host functions.
 */
import { coldAgeMs, type StorageReport, storageContributors, storageReport } from "@tapedeck/host";
import type { SessionStore } from "@tapedeck/session-store";
import type { Hono } from "hono";
import type { AnswerOf } from "../shared/api-contract";

/** `GET /api/storage`: the home's bytes by kind and what compact would save. */
export function registerStorageRoutes(
  app: Hono,
  options: { store: SessionStore; env: Readonly<Record<string, string | undefined>> },
): void {
  app.get("/api/storage", async (c) => {
    const report: StorageReport = await storageReport(
      options.store,
      storageContributors(options.store),
      { olderThanMs: coldAgeMs(options.env) },
    );
    return c.json(report satisfies AnswerOf<"GET /api/storage">);
  });
}
