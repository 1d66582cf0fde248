/**
 * `@tapedeck/session-query/testing`: the conformance suite for {@link SessionQueryEngine}
 * backends, run with vitest.
 */
export { describeQueryEngine, type QueryEngineHarness } from "./describe-query-engine";
