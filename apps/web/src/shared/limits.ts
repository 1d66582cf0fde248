/** Limits the server enforces and the page shows before anything is sent. */

/** Longest prompt a run accepts, in characters after trimming (`POST /api/agent/stream`). */
export const INPUT_LIMIT = 200_000;
