import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { scriptedProvider } from "@tapedeck/agent/testing";
import { createSessionStore } from "@tapedeck/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";

let root: string;
let web: WebApp | undefined;

afterEach(() => {
  web?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("Storage in the viewer", () => {
  it("GET /api/storage gives the bytes by kind that tapedeck storage prints, compressed logs included", async () => {
    root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-storage-"));
    const store = createSessionStore({ home: path.join(root, "tapedeck") });
    const seed = [{ type: "message" as const, runId: "r", role: "user" as const, content: "hi" }];
    const hot = await store.create({ cwd: root, seed });
    const cold = await store.create({ cwd: root, seed });
    await store.compact(cold.sessionId);
    web = createApp({
      store,
      index: createMemoryIndex(store),
      agent: { model: "openai:gpt-4.1-mini", provider: () => scriptedProvider([]), cwd: root },
    });
    const response = await web.app.request("/api/storage");
    expect(response.status).toBe(200);
    const report = (await response.json()) as {
      rows: { kind: string; bytes: number; files: number }[];
      bytes: number;
      compactWouldSave: number;
    };
    const byKind = Object.fromEntries(report.rows.map((row) => [row.kind, row]));
    expect(byKind["plain logs"]).toMatchObject({ files: 1 });
    expect(byKind["plain logs"]?.bytes).toBe(
      (await store.scan()).logs.find((log) => log.sessionId === hot.sessionId)?.size,
    );
    expect(byKind["compressed logs"]).toMatchObject({ files: 1 });
    expect(Object.keys(byKind)).toEqual(
      expect.arrayContaining(["blobs", "trash", "index", "kept tails", "import state"]),
    );
    // The compressed log's tail (kept by compact) and no import yet.
    expect(byKind["kept tails"]).toMatchObject({ files: 1 });
    expect(byKind["import state"]).toEqual({ kind: "import state", bytes: 0, files: 0 });
    expect(report.bytes).toBe(report.rows.reduce((sum, row) => sum + row.bytes, 0));
  });

  it("GET /api/blobs/:hash serves an attachment from the local blob store: as an image type only when asked for a raster one; 404 when missing, 400 for a bad name", async () => {
    root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-blobs-"));
    const store = createSessionStore({ home: path.join(root, "tapedeck") });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(100, 3)]);
    const ref = store.putBlob(png, { mediaType: "image/png" });
    web = createApp({
      store,
      index: createMemoryIndex(store),
      agent: { model: "openai:gpt-4.1-mini", provider: () => scriptedProvider([]), cwd: root },
    });
    const image = await web.app.request(`/api/blobs/${ref.blob}?type=image/png`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    const plain = await web.app.request(`/api/blobs/${ref.blob}`);
    expect(plain.headers.get("content-type")).toBe("application/octet-stream");
    expect((await web.app.request(`/api/blobs/${ref.blob}?type=image/svg%2Bxml`)).status).toBe(400);
    const missing = await web.app.request(`/api/blobs/${"0".repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "BLOB_MISSING" } });
    expect((await web.app.request("/api/blobs/..%2F..%2Fetc")).status).toBe(400);
  });
});
