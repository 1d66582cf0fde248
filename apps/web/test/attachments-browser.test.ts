// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators; innerText is the visible text on purpose.
/**
 * Imported images in Debian's Chromium: a pi session whose prompt carries a PNG, an SVG and an
 * image of a type the viewer does not show, imported into the served home. The PNG is drawn as an
 * image loaded from the local blob route; the SVG (which can carry script) and the unknown type
 * are named by their description, never rendered as images.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { importSessions } from "@tapedeck/importers";
import { createSessionStore } from "@tapedeck/session-store";
import { describe, expect, it } from "vitest";
import { setupBrowserSuite } from "./browser-harness";

/** A real `width`×`height` PNG (8-bit RGB, every pixel red): the browser must decode it. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0)]);
  for (let x = 0; x < width; x += 1) row[1 + x * 3] = 255;
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const picture = png(7, 5);
/** An SVG that would run script if it were drawn as a document. */
const svg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9" onload="window.__svgRan=1"><script>window.__svgRan=1</script><rect width="9" height="9"/></svg>',
);
/** Bytes of an image type the viewer does not show (a PNG's bytes, so only its type is wrong). */
const odd = png(3, 3);

const piSession = () => {
  const at = "2026-01-05T10:00:00.000Z";
  const image = (data: Buffer, mimeType: string) => ({
    type: "image",
    data: data.toString("base64"),
    mimeType,
  });
  return [
    {
      type: "session",
      version: 3,
      id: "7d1c2e3f-0000-4000-8000-00000000a77a",
      timestamp: at,
      cwd: "/w",
    },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at,
      message: {
        role: "user",
        timestamp: Date.parse(at),
        content: [
          { type: "text", text: "three pictures" },
          image(picture, "image/png"),
          image(svg, "image/svg+xml"),
          image(odd, "image/x-tapedeck-odd"),
        ],
      },
    },
  ];
};

const suite = setupBrowserSuite({
  seed: async () => {
    const root = mkdtempSync(path.join(tmpdir(), "tapedeck-web-attachments-browser-"));
    const sources = path.join(root, "pi-sessions", "--w--");
    mkdirSync(sources, { recursive: true });
    const file = path.join(sources, "2026-01-05T10-00-00-000Z_7d1c2e3f.jsonl");
    writeFileSync(
      file,
      piSession()
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(""),
    );
    const home = path.join(root, "home");
    await importSessions({ store: createSessionStore({ home }), source: "pi", paths: [file] });
    return { home, removeAfter: [root] };
  },
});

describe("imported image attachments in the viewer", () => {
  it("shows a PNG as an image from the local blob route; an SVG and an unknown type are named, not drawn", async () => {
    const [listed] = await suite.served.store.list();
    const page = await suite.open(`?session=${listed!.sessionId}`);
    const images = page.locator("img.attachment");
    await expect.poll(() => images.count()).toBe(1);
    const image = images.first();
    await expect
      .poll(() => image.evaluate((element: HTMLImageElement) => element.complete))
      .toBe(true);
    const drawn = await image.evaluate((element: HTMLImageElement) => ({
      src: element.getAttribute("src"),
      width: element.naturalWidth,
      height: element.naturalHeight,
    }));
    expect(drawn.src).toMatch(/^\/api\/blobs\/[0-9a-f]{64}\?type=image%2Fpng$/);
    expect(drawn).toMatchObject({ width: 7, height: 5 });
    const named = page.locator(".attachments .tag");
    expect(await named.allInnerTexts()).toEqual([
      `image/svg+xml, ${svg.length} bytes`,
      `image/x-tapedeck-odd, ${odd.length} bytes`,
    ]);
    expect(await page.locator("svg[onload], object, embed, iframe").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __svgRan?: number }).__svgRan)).toBeUndefined();
    // The route serves no type it was not asked for a raster image as.
    const asSvg = await page.request.get(
      `${new URL(page.url()).origin}/api/blobs/${drawn.src!.slice(11, 75)}?type=image/svg%2Bxml`,
    );
    expect(asSvg.status()).toBe(400);
  });
});
