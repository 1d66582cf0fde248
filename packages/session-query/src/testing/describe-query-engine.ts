/**
 * The conformance suite every {@link SessionQueryEngine} backend runs: the same behaviours, the
 * same assertions, whatever stores the index.
 */
import type { EventLogBuilder } from "@tapedeck/session/testing";
import { afterEach, beforeEach, describe } from "vitest";
import type { SessionQueryEngine } from "../query-engine";
import { damageTests } from "./damage-tests";
import type { QueryEngineHarness } from "./harness";
import { listTests } from "./list-tests";
import { prefixTests } from "./prefix-tests";
import { scopeTests } from "./scope-tests";
import { searchTests } from "./search-tests";
import { sessionTests } from "./session-tests";
import type { SuiteContext } from "./suite-helpers";
import { toolTests } from "./tool-tests";

/**
 * Registers the conformance tests for one backend. `create` is called before each test and must
 * return an empty engine; `close` is called after it.
 */
export function describeQueryEngine(name: string, create: () => Promise<QueryEngineHarness>): void {
  describe(`SessionQueryEngine conformance: ${name}`, () => {
    let current: QueryEngineHarness | undefined;
    const harness = (): QueryEngineHarness => {
      if (current === undefined) throw new Error("no harness outside a test");
      return current;
    };
    const context: SuiteContext = {
      get harness() {
        return harness();
      },
      get engine(): SessionQueryEngine {
        return harness().engine;
      },
      async put(...builders: EventLogBuilder[]) {
        for (const builder of builders) await harness().write(builder.header, builder.events);
      },
    };

    beforeEach(async () => {
      current = await create();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    listTests(context);
    searchTests(context);
    prefixTests(context);
    scopeTests(context);
    sessionTests(context);
    damageTests(context);
    toolTests(context);
  });
}
