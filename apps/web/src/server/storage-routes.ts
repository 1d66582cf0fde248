/**
 * The viewer's "Storage": the same figures as `tapedeck storage` (bytes by kind, what
 * `storage compact` would save), from the same host functions.
 */
import { coldAgeMs, type StorageReport, storageContributors, storageReport } from "@tapedeck/host";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { answer } from "./route-input";

/** `GET /api/storage`: the home's bytes by kind and what compact would save. */
export function storageRoutes(options: {
  store: SessionStore;
  env: Readonly<Record<string, string | undefined>>;
}) {
  return new Hono().get("/api/storage", async (c) => {
    const report: StorageReport = await storageReport(
      options.store,
      storageContributors(options.store),
      { olderThanMs: coldAgeMs(options.env) },
    );
    return answer(c, report);
  });
}
