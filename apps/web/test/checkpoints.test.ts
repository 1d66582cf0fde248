import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { gitRepo, testTempDir } from "@tapedeck/test-harness";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";
import { collect } from "./sse";

let web: WebApp | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/**
 * Two turns run by the server's own host (scripted model, tools auto-approved) in a git workspace:
 * the first writes a.txt, the second edits it with sed and adds new.txt and a binary file.
 */
async function twoTurnViewer(token?: string) {
  const home = testTempDir("tapedeck-web-cp-home-");
  const cwd = testTempDir("tapedeck-web-cp-work-");
  gitRepo(cwd, { README: "readme\n" });
  const store = createSessionStore({ home });
  const command =
    "sed -i s/one/two/ a.txt && echo fresh > new.txt && printf 'x\\000y' > bin.dat && head -c 300000 /dev/zero | tr '\\000' a > big.txt";
  const provider = scriptedProvider([
    {
      calls: [{ callId: "c1", name: "write_file", arguments: { path: "a.txt", content: "one\n" } }],
    },
    { text: "ok1" },
    { calls: [{ callId: "c2", name: "run_command", arguments: { command } }] },
    { text: "ok2" },
  ]);
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: {
      model: "openai:gpt-4.1-mini",
      provider: () => provider,
      cwd,
      env: { PATH: process.env.PATH },
    },
    ...(token === undefined ? {} : { token }),
  });
  const app = web.app;
  const auth: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  const first = await collect(
    await app.request("/api/agent/stream", json({ input: "t1", policy: "auto" }, auth)),
  );
  const sessionId = (JSON.parse(first[0]?.data ?? "{}") as { sessionId: string }).sessionId;
  expect(first.at(-1)?.event).toBe("run_finished");
  const second = await collect(
    await app.request("/api/agent/stream", json({ input: "t2", sessionId, policy: "auto" }, auth)),
  );
  expect(second.at(-1)?.event).toBe("run_finished");
  const { events } = await store.readSession(sessionId);
  const outputs = events.flatMap((event) =>
    event.type === "function_call_output" ? [{ seq: event.seq, checkpoint: event.checkpoint }] : [],
  );
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(url, json(body, headers));
  return { app, post, cwd, sessionId, outputs, store };
}

describe("checkpoints in the viewer (the server's real host, git workspace)", () => {
  it("gives a changed file's two versions: text, binary, too large and added; refuses bad paths and events", async () => {
    const { app, sessionId, outputs } = await twoTurnViewer();
    const first = outputs[0]?.seq ?? -1;
    const second = outputs[1]?.seq ?? -1;
    expect(outputs[1]?.checkpoint?.changed).toEqual(
      expect.arrayContaining([
        { path: "a.txt", change: "modified" },
        { path: "bin.dat", change: "added" },
      ]),
    );
    const file = (seq: number, p: string) =>
      app.request(
        `/api/sessions/${sessionId}/checkpoints/${seq}/file?path=${encodeURIComponent(p)}`,
      );
    const modified = await file(second, "a.txt");
    expect(modified.status).toBe(200);
    expect(await modified.json()).toMatchObject({
      path: "a.txt",
      change: "modified",
      before: { kind: "text", text: "one\n" },
      after: { kind: "text", text: "two\n" },
    });
    expect(await (await file(first, "a.txt")).json()).toMatchObject({
      change: "added",
      before: { kind: "absent" },
      after: { kind: "text", text: "one\n" },
    });
    expect(await (await file(second, "bin.dat")).json()).toMatchObject({
      before: { kind: "absent" },
      after: { kind: "binary", bytes: 3 },
    });
    expect(await (await file(second, "big.txt")).json()).toMatchObject({
      after: { kind: "too-large", bytes: 300000 },
    });
    const outside = await file(second, "../etc/passwd");
    expect(outside.status).toBe(400);
    expect(await outside.json()).toMatchObject({ error: { code: "BAD_PATH" } });
    const none = await file(0, "a.txt");
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: { code: "NO_CHECKPOINT" } });
  });

  it("previews, refuses over hand edits without force, restores files only, then rewinds with a fork", async () => {
    const { app, post, cwd, sessionId, outputs, store } = await twoTurnViewer();
    const first = outputs[0]?.seq ?? -1;
    writeFileSync(path.join(cwd, "a.txt"), "hand\n");
    const url = `/api/sessions/${sessionId}/rewind`;
    const preview = await post(url, { seq: first, filesOnly: true, dryRun: true });
    expect(preview.status).toBe(200);
    const plan = (await preview.json()) as {
      changes: { path: string; change: string }[];
      handEdited: string[];
    };
    expect(plan.changes.map((change) => `${change.change} ${change.path}`).sort()).toEqual([
      "deleted big.txt",
      "deleted bin.dat",
      "deleted new.txt",
      "modified a.txt",
    ]);
    expect(plan.handEdited).toEqual(["a.txt"]);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("hand\n");

    const refused = await post(url, { seq: first, filesOnly: true });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: "HAND_EDITS" } });
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("hand\n");

    const restored = await post(url, { seq: first, filesOnly: true, force: true });
    expect(restored.status).toBe(201);
    const report = (await restored.json()) as { forkSessionId?: string; undo?: string };
    expect(report.forkSessionId).toBeUndefined();
    expect(report.undo).toMatch(/^(?:[0-9a-f]{40}|lc-[0-9a-f]{32})$/);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect((await store.scan()).logs).toHaveLength(1);

    const last = outputs[1]?.seq ?? -1;
    const rewound = await post(url, { seq: last });
    expect(rewound.status).toBe(201);
    const fork = ((await rewound.json()) as { forkSessionId?: string }).forkSessionId ?? "";
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("two\n");
    const forkPage = await app.request(`/api/sessions/${fork}`);
    expect(forkPage.status).toBe(200);
    const listed = (await (await app.request("/api/sessions")).json()) as {
      items: { id: string }[];
    };
    expect(listed.items.map((item) => item.id)).toContain(fork);
  });

  it("undoes the rewind the page made, and only that one: another since refuses with 409", async () => {
    const { post, cwd, sessionId, outputs } = await twoTurnViewer();
    const first = outputs[0]?.seq ?? -1;
    const rewind = `/api/sessions/${sessionId}/rewind`;
    const undoUrl = `/api/sessions/${sessionId}/rewind/undo`;
    writeFileSync(path.join(cwd, "a.txt"), "hand\n");
    const restored = await post(rewind, { seq: first, filesOnly: true, force: true });
    const { undo } = (await restored.json()) as { undo: string };
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");

    const bad = await post(undoUrl, { undo: "not-a-checkpoint" });
    expect(bad.status).toBe(400);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("one\n");

    const undone = await post(undoUrl, { undo });
    expect(undone.status).toBe(201);
    const report = (await undone.json()) as { changes: { path: string; change: string }[] };
    expect(report.changes.map((change) => `${change.change} ${change.path}`).sort()).toEqual([
      "added big.txt",
      "added bin.dat",
      "added new.txt",
      "modified a.txt",
    ]);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("hand\n");
    expect(readFileSync(path.join(cwd, "new.txt"), "utf8")).toBe("fresh\n");

    // The undo was itself journaled: the first restore's undo is no longer the last one.
    const again = await post(undoUrl, { undo });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "UNDO_MOVED" } });
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("hand\n");
  });

  it("guards the rewind route: a bad body, a cross-origin POST and a missing token change nothing", async () => {
    const { post, cwd, sessionId, outputs } = await twoTurnViewer("secret");
    const first = outputs[0]?.seq ?? -1;
    const url = `/api/sessions/${sessionId}/rewind`;
    const auth = { authorization: "Bearer secret" };
    expect((await post(url, { seq: first, filesOnly: true })).status).toBe(401);
    expect(
      (
        await post(
          url,
          { seq: first, filesOnly: true },
          { ...auth, origin: "http://evil.example", host: "localhost" },
        )
      ).status,
    ).toBe(403);
    const bad = await post(url, { seq: "1", filesOnly: true }, auth);
    expect(bad.status).toBe(400);
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("two\n");
  });
});
