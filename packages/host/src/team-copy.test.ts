import * as fs from "node:fs";
import { join } from "node:path";
import { createTestDatabase } from "@tapedeck/postgres-server";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { createPostgresQueryEngine } from "@tapedeck/session-query/postgres";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createHost } from "./create-host";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const dir = (name: string) => testTempDir(`tapedeck-${name}-`);

const PARENT = "0193b6e2-7c1a-7d3e-9f00-0000000000f1";
const FORK = "0193b6e2-7c1a-7d3e-9f00-0000000000f2";

describe("continuing a session logged on another machine", () => {
  it("copies it and its fork parent into the home first, says so, then continues it", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    const laptop = dir("laptop");
    fs.mkdirSync(join(laptop, "sessions"));
    const parent = eventLogBuilder({ sessionId: PARENT, cwd: "/laptop/project" })
      .turn()
      .user("plan the release")
      .assistant("Tag, build, publish.")
      .end();
    const fork = eventLogBuilder({
      sessionId: FORK,
      cwd: "/laptop/project",
      parent: { sessionId: PARENT, seq: 4 },
    })
      .turn()
      .user("skip the build")
      .assistant("Then publish the last artifacts.")
      .end();
    fs.writeFileSync(join(laptop, "sessions", `${PARENT}.jsonl`), parent.jsonl());
    fs.writeFileSync(join(laptop, "sessions", `${FORK}.jsonl`), fork.jsonl());
    const pusher = await createPostgresQueryEngine({ url: database.url });
    await pusher.push(createSessionStore({ home: laptop }), { host: "laptop" });
    await pusher.close();

    const runner = dir("runner");
    const work = dir("work");
    const notices: string[] = [];
    const host = createHost({
      env: { TAPEDECK_HOME: runner, TAPEDECK_INDEX_URL: database.url },
      warn: (text) => notices.push(text),
    });
    cleanups.push(() => host.close());
    const prepared = await host.startRun({
      sessionId: FORK,
      input: "/goal ship it",
      policy: { approval: "deny" },
      callerCwd: work,
      cwd: work,
    });
    expect(prepared.resumed).toBe(true);
    expect(notices.join("")).toContain(`copied ${PARENT}, ${FORK} from the team index`);
    const store = createSessionStore({ home: runner });
    const session = await store.readSession(FORK);
    expect(session.events.slice(0, parent.events.length)).toEqual(parent.events);
    expect(session.events.at(-1)?.type).toBe("goal/set");
    // The copies hold the logs as pushed (same header and events), plus what this run appended.
    const lines = (id: string) =>
      fs
        .readFileSync(store.pathOf(id), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
    expect(lines(PARENT)).toEqual([parent.header, ...parent.events]);
    expect(lines(FORK).slice(0, 1 + fork.events.length)).toEqual([fork.header, ...fork.events]);
  });
});
