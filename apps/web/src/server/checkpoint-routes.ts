/**
 * Checkpoints in the viewer: a changed file's two versions (for the diff) and "Restore files to
 * here" / "Rewind to here", through the same host functions as `tapedeck rewind`.
 */

import type { SessionIndex } from "@tapedeck/host";
import {
  type CheckpointFileChange,
  checkpointFileChange,
  type RewindReport,
  rewindSession,
  type UndoReport,
  undoLastRewind,
} from "@tapedeck/host";
import type { SessionStore } from "@tapedeck/session-store";
import { Hono } from "hono";
import { parseInput } from "./http-errors";
import { answer, jsonInput, queryInput } from "./route-input";
import {
  checkpointFileQuerySchema,
  rewindBodySchema,
  rewindUndoBodySchema,
  seqSchema,
  sessionIdSchema,
} from "./schemas";

/** Largest file a diff shows (bigger ones say their size). */
export const MAX_DIFF_FILE_BYTES = 256 * 1024;

/**
 * `GET /api/sessions/:id/checkpoints/:seq/file?path=` (the file at event `seq`'s checkpoint and at
 * the one before), `POST /api/sessions/:id/rewind` (`{ seq, filesOnly?, dryRun?, force? }`) and
 * `POST /api/sessions/:id/rewind/undo` (`{ undo, dryRun? }`: `tapedeck rewind --undo` for the
 * rewind the page made).
 */
export function checkpointRoutes(options: { store: SessionStore; index: SessionIndex }) {
  const { store, index } = options;
  return new Hono()
    .get(
      "/api/sessions/:id/checkpoints/:seq/file",
      queryInput(checkpointFileQuerySchema),
      async (c) => {
        const sessionId = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
        const seq = parseInput(seqSchema, c.req.param("seq"), "seq");
        const query = c.req.valid("query");
        const change: CheckpointFileChange = await checkpointFileChange(store, {
          sessionId,
          seq,
          path: query.path,
          maxBytes: MAX_DIFF_FILE_BYTES,
        });
        return answer(c, change);
      },
    )
    .post("/api/sessions/:id/rewind", jsonInput(rewindBodySchema), async (c) => {
      const sessionId = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      const body = c.req.valid("json");
      // No `confirm`: hand edits refuse (409) unless the page sends `force` after showing them.
      const report: RewindReport = await rewindSession(store, {
        sessionId,
        seq: body.seq,
        filesOnly: body.filesOnly === true,
        dryRun: body.dryRun === true,
        force: body.force === true,
      });
      if (report.forkSessionId !== undefined) await index.sync();
      return answer(c, report, body.dryRun === true ? 200 : 201);
    })
    .post("/api/sessions/:id/rewind/undo", jsonInput(rewindUndoBodySchema), async (c) => {
      const sessionId = parseInput(sessionIdSchema, c.req.param("id"), "sessionId");
      const body = c.req.valid("json");
      const session = await store.readSession(sessionId);
      // Only the rewind the page showed: another one since (CLI, another tab) refuses with 409.
      const report: UndoReport = await undoLastRewind(store.home, session.header.cwd, {
        expectUndo: body.undo,
        dryRun: body.dryRun === true,
      });
      return answer(c, report, body.dryRun === true ? 200 : 201);
    });
}
