import { rmSync } from "node:fs";
import { type ScriptStep, scriptedProvider } from "@tapedeck/agent/testing";
import { createSessionStore, type SessionStore } from "@tapedeck/session-store";
import { afterEach, beforeEach } from "vitest";
import { type AppOptions, createApp, createMemoryIndex, type WebApp } from "../src/server/index";
import { type SeededHome, seedHome } from "./seed";

/**
 * What the API tests (`api-*.test.ts`) reach: a freshly seeded home per test, its store, and the
 * app the test made, which is closed (and the home removed) after each test.
 */
export interface ApiHome {
  /** The seeded home of the running test. */
  readonly seeded: SeededHome;
  /** The session store of that home. */
  readonly store: SessionStore;
  /** The app the running test made; a test that builds its own with `createApp` sets it here. */
  web: WebApp;
  /** An app on the home whose model answers with `calls` (a scripted provider), plus `extra`. */
  makeApp(
    calls?: readonly ScriptStep[],
    extra?: Omit<AppOptions, "store" | "index" | "agent">,
  ): { app: WebApp["app"]; provider: ReturnType<typeof scriptedProvider> };
  /** The sessions of the home, as the store lists them. */
  sessionIds(): Promise<string[]>;
}

/** Registers the per-test seeding and clean-up of the calling test file and returns its handle. */
export function setupApiHome(): ApiHome {
  let seeded: SeededHome;
  let store: SessionStore;
  let web: WebApp;
  beforeEach(() => {
    seeded = seedHome();
    store = createSessionStore({ home: seeded.home });
  });
  afterEach(async () => {
    await web?.close();
    rmSync(seeded.home, { recursive: true, force: true });
    rmSync(seeded.work, { recursive: true, force: true });
  });
  return {
    get seeded() {
      return seeded;
    },
    get store() {
      return store;
    },
    get web() {
      return web;
    },
    set web(app: WebApp) {
      web = app;
    },
    makeApp(calls = [], extra = {}) {
      const provider = scriptedProvider([...calls]);
      web = createApp({
        store,
        index: createMemoryIndex(store),
        agent: { model: "openai:gpt-4.1-mini", provider: () => provider, cwd: seeded.work },
        ...extra,
      });
      return { app: web.app, provider };
    },
    sessionIds: () => store.sessionIds(),
  };
}

/** A JSON POST request for `app.request`. */
export const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
