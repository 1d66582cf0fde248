import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { setAutoImport } from "@tapedeck/host";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";
import { collect } from "./sse";

const samples = fileURLToPath(
  new URL("../../../packages/importers/__fixtures__/samples", import.meta.url),
);
let root: string;
let web: WebApp | undefined;

afterEach(() => {
  web?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A server whose "HOME" holds a Claude Code transcript and nothing else. */
function setup() {
  root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-import-"));
  const userHome = path.join(root, "user");
  cpSync(path.join(samples, "claude-code"), path.join(userHome, ".claude", "projects"), {
    recursive: true,
  });
  const store = createSessionStore({ home: path.join(root, "tapedeck") });
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai:gpt-4.1-mini", provider: () => scriptedProvider([]), cwd: root },
    importEnvironment: { HOME: userHome },
  });
  return web.app;
}

const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

describe("Import in the viewer", () => {
  it("lists what the default folders hold, with counts and sizes", async () => {
    const app = setup();
    const response = await app.request("/api/import/sources");
    const { items } = (await response.json()) as {
      items: Array<{ source: string; files: number; bytes: number; paths: string[] }>;
    };
    expect(items.map((item) => item.source)).toEqual(["claude-code", "codex", "pi", "opencode"]);
    expect(items[0]).toMatchObject({ files: 1, bytes: 10491 });
    expect(items[0]?.paths[0]).toBe(path.join(root, "user", ".claude", "projects"));
    expect(items[1]).toMatchObject({ files: 0, bytes: 0 });
  });

  it("imports with progress, then the session is listed and shows where it came from", async () => {
    const app = setup();
    const events = await collect(await app.request("/api/import/claude-code", post({})));
    expect(events.map((event) => event.event)).toEqual(["progress", "summary"]);
    const summary = JSON.parse(events[1]!.data) as { counts: Record<string, number> };
    expect(summary.counts).toMatchObject({ created: 1 });
    const list = (await (await app.request("/api/sessions")).json()) as {
      items: Array<{ id: string; status: string }>;
    };
    expect(list.items).toHaveLength(1);
    // Its last turn is the other tool's, left open as the source may grow: not "interrupted".
    expect(list.items[0]?.status).toBe("imported");
    const filtered = (await (await app.request("/api/sessions?status=imported")).json()) as {
      items: Array<{ id: string }>;
    };
    expect(filtered.items.map((item) => item.id)).toEqual([list.items[0]!.id]);
    const view = (await (await app.request(`/api/sessions/${list.items[0]!.id}`)).json()) as {
      header: { origin?: unknown };
    };
    expect(view.header.origin).toMatchObject({
      tool: "claude-code",
      sessionId: "55604662-cf2a-4331-851a-ec234028f8ca",
    });
    const again = await collect(await app.request("/api/import/claude-code", post({})));
    expect(JSON.parse(again.at(-1)!.data)).toMatchObject({ counts: { created: 0, unchanged: 1 } });
  });

  it("shows a sub-agent's link to the Task call that started it in the lineage", async () => {
    const app = setup();
    const userHome = path.join(root, "user");
    cpSync(
      fileURLToPath(
        new URL(
          "../../../packages/importers/__fixtures__/made/claude-code-subagent",
          import.meta.url,
        ),
      ),
      path.join(userHome, ".claude", "projects"),
      { recursive: true },
    );
    await collect(await app.request("/api/import/claude-code", post({})));
    const list = (await (await app.request("/api/sessions")).json()) as {
      items: Array<{ id: string; title: string; spawnedBy?: { sessionId: string; seq: number } }>;
    };
    const child = list.items.find((item) => item.spawnedBy !== undefined)!;
    const parent = list.items.find((item) => item.title === "count the otters")!;
    expect(child.spawnedBy).toMatchObject({ sessionId: parent.id, seq: 3 });
    const up = (await (await app.request(`/api/sessions/${child.id}/lineage`)).json()) as {
      spawnedBy?: { session: { id: string }; seq: number };
      shortIds: Record<string, string>;
    };
    expect(up.spawnedBy).toMatchObject({ session: { id: parent.id }, seq: 3 });
    expect(up.shortIds[parent.id]).toBeDefined();
    const down = (await (await app.request(`/api/sessions/${parent.id}/lineage`)).json()) as {
      subAgents?: Array<{ session: { id: string }; seq: number }>;
    };
    expect(down.subAgents).toMatchObject([{ session: { id: child.id }, seq: 3 }]);
  });

  it("imports new sessions by itself while the home's auto import is on, and they appear in the list", async () => {
    root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-auto-"));
    const userHome = path.join(root, "user");
    const store = createSessionStore({ home: path.join(root, "tapedeck") });
    const start = (autoImportIntervalMs: number) =>
      createApp({
        store,
        index: createMemoryIndex(store),
        agent: { model: "openai:gpt-4.1-mini", provider: () => scriptedProvider([]), cwd: root },
        importEnvironment: { HOME: userHome },
        autoImportIntervalMs,
      });
    const listed = async (app: WebApp["app"]) =>
      ((await (await app.request("/api/sessions")).json()) as { items: unknown[] }).items.length;
    // Off by default: nothing is imported.
    cpSync(path.join(samples, "claude-code"), path.join(userHome, ".claude", "projects"), {
      recursive: true,
    });
    web = start(20);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await listed(web.app)).toBe(0);
    await web.close();
    setAutoImport(store.home, true);
    web = start(20);
    const app = web.app;
    await expect.poll(() => listed(app), { timeout: 10_000 }).toBe(1);
  });

  it("refuses a source it does not offer and a body with unknown fields", async () => {
    const app = setup();
    expect((await app.request("/api/import/tapedeck", post({}))).status).toBe(400);
    expect((await app.request("/api/import/pi", post({ paths: ["/etc"] }))).status).toBe(400);
  });
});
