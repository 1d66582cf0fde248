/**
 * The viewer's "Import": what the other agents' default folders hold, and importing one of them
 * with progress over SSE. Only the default locations are offered: a browser never names a path
 * on the server to read.
 */

import type { SessionIndex } from "@tapedeck/host";
import {
  defaultLocations,
  findUnits,
  type ImportEnvironment,
  type ImportProgress,
  type ImportSummary,
  importSessions,
} from "@tapedeck/importers";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { z } from "zod";
import { eventStream } from "./event-stream";
import { type ErrorBody, parseInput, toHttpError } from "./http-errors";
import { answer, jsonInput } from "./route-input";

/** Sources the viewer offers (Tapedeck exports have no default folder). */
const viewerSources = ["claude-code", "codex", "pi", "opencode"] as const;

const sourceSchema = z.enum(viewerSources);
const importBodySchema = z.strictObject({ dryRun: z.boolean().optional() });

/** A source the viewer can import from (`POST /api/import/:source`). */
export type ViewerSource = z.infer<typeof sourceSchema>;
/** `POST /api/import/:source` body. */
export type ImportBody = z.input<typeof importBodySchema>;

/** What `POST /api/import/:source` streams: progress, then one summary or error. */
export interface ImportEvents {
  progress: ImportProgress;
  summary: ImportSummary;
  error: ErrorBody["error"];
}

/** One source as `GET /api/import/sources` lists it. */
export interface ImportSourceListing {
  source: ViewerSource;
  /** The folders searched. */
  paths: string[];
  /** Files (sessions, for opencode storage) found there. */
  files: number;
  bytes: number;
}

/**
 * `GET /api/import/sources` and `POST /api/import/:source` (SSE: `progress` events, then one
 * `summary` or `error`). One import at a time per server (409 while one runs).
 */
export function importRoutes(options: {
  store: SessionStore;
  index: SessionIndex;
  env: ImportEnvironment;
}) {
  let running = false;
  return new Hono()
    .get("/api/import/sources", (c) => {
      const items: ImportSourceListing[] = viewerSources.map((source) => {
        const paths = defaultLocations(source, options.env);
        const units = findUnits(source, paths).filter((unit) => unit.bytes > 0);
        return {
          source,
          paths,
          files: units.length,
          bytes: units.reduce((sum, unit) => sum + unit.bytes, 0),
        };
      });
      return answer(c, { items });
    })
    .post("/api/import/:source", jsonInput(importBodySchema), async (c) => {
      const source = parseInput(sourceSchema, c.req.param("source"), "source");
      const body = c.req.valid("json");
      if (running) {
        return c.json(
          { error: { code: "IMPORT_RUNNING", message: "An import is already running." } },
          409,
        );
      }
      running = true;
      return eventStream<ImportEvents>(c, async (send) => {
        try {
          const summary = await importSessions({
            store: options.store,
            source,
            env: options.env,
            dryRun: body.dryRun === true,
            onProgress: (progress) => {
              void send("progress", progress);
            },
          });
          await options.index.sync();
          await send("summary", summary);
        } catch (error) {
          await send("error", toHttpError(error).body.error);
        } finally {
          running = false;
        }
      });
    });
}
