/**
 * What a run tells its surface live that no log event records, so no projection of the log can
 * show it. Deliberately small: everything else a surface shows is projected from committed log
 * events by the host (`runEventProjection`, `acpProjection`).
 *
 * - `tool_started`: an authorized call's tool began executing (ACP `in_progress`). Its outcome is
 *   the logged `function_call_output`.
 */
export type LiveNotice = { type: "tool_started"; runId: string; callId: string };
