/**
 * `@tapedeck/session-query/testing`: the conformance suite for {@link SessionQueryEngine}
 * backends, run with vitest.
 */
export { describeQueryEngine } from "./describe-query-engine";
export type { QueryEngineHarness } from "./harness";
