import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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

/** A 64 KB "screenshot": pseudo-random rows (barely compressible alone); `frame` redraws a few. */
function screenshot(frame: number): Buffer {
  const rows: Buffer[] = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
  for (let row = 0; row < 256; row += 1) {
    const seed = row % 32 === 0 ? `${frame}:${row}` : `${row}`;
    const bytes: Buffer[] = [];
    for (let part = 0; part < 8; part += 1) {
      bytes.push(createHash("sha256").update(`${seed}:${part}`).digest());
    }
    rows.push(Buffer.concat(bytes));
  }
  return Buffer.concat(rows);
}

describe("delta blobs in the viewer", () => {
  it("GET /api/blobs/:hash and the HTML export serve an image stored as a delta byte for byte", async () => {
    root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-delta-"));
    const home = path.join(root, "tapedeck");
    const store = createSessionStore({ home });
    const first = screenshot(0);
    const second = screenshot(1);
    const refs = [first, second].map((png) => store.putBlob(png, { mediaType: "image/png" }));
    const seed = refs.map((ref, index) => ({
      type: "message" as const,
      runId: "r",
      role: "user" as const,
      content: `shot ${index}`,
      attachments: [ref],
    }));
    const { sessionId } = await store.create({ cwd: root, seed });
    await store.compact(sessionId);
    const stored = (hash: string) =>
      readFileSync(path.join(home, "blobs", "sha256", hash.slice(0, 2), `${hash.slice(2)}.zst`));
    // The second is a delta (its file opens with the skippable frame naming the first), and small.
    expect(stored(refs[1]!.blob).readUInt32LE(0)).toBe(0x184d2a5d);
    expect(stored(refs[1]!.blob).toString("latin1", 20, 84)).toBe(refs[0]!.blob);
    expect(stored(refs[1]!.blob).length).toBeLessThan(second.length / 4);
    web = createApp({
      store,
      index: createMemoryIndex(store),
      agent: { model: "openai:gpt-4.1-mini", provider: () => scriptedProvider([]), cwd: root },
    });
    for (const [index, png] of [first, second].entries()) {
      const served = await web.app.request(`/api/blobs/${refs[index]!.blob}?type=image/png`);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    }
    const html = await (await web.app.request(`/api/sessions/${sessionId}/export/html`)).text();
    expect(html).toContain(second.toString("base64"));
  });
});
