import { createHash } from "node:crypto";
import { replayLogText } from "@tapedeck/session";
import { eventLogBuilder } from "@tapedeck/session/testing";
import { describe, expect, it } from "vitest";
import { renderSessionHtml } from "./render-html";

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(64, 1)]);
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const ref = (data: Buffer, mediaType: string) => ({
  blob: createHash("sha256").update(data).digest("hex"),
  bytes: data.length,
  mediaType,
  preview: `${mediaType}, ${data.length} bytes`,
});

/** A session whose prompt carries a PNG and whose tool output carries a PNG and an SVG. */
function sessionWithImages() {
  const log = eventLogBuilder();
  log.turn();
  const runId = log.events.at(-1)?.runId ?? "";
  log.push({
    type: "message",
    runId,
    role: "user",
    content: "what is this?\n[image]",
    attachments: [ref(png, "image/png")],
  });
  log.call("screenshot", {}, "c1");
  log.push({
    type: "function_call_output",
    runId,
    callId: "c1",
    output: "taken\n[image]",
    isError: false,
    sourceEventSeqs: [3],
    attachments: [ref(png, "image/png"), ref(svg, "image/svg+xml")],
  });
  log.end();
  return replayLogText(log.jsonl());
}

const blobs = new Map([
  [ref(png, "image/png").blob, png],
  [ref(svg, "image/svg+xml").blob, svg],
]);
const readBlob = (hash: string) => {
  const data = blobs.get(hash);
  if (data === undefined) throw new Error(`no blob ${hash}`);
  return data;
};

describe("images in the HTML export", () => {
  it("embeds image attachments of prompts and tool outputs as data URLs (the file stays self-contained)", () => {
    const html = renderSessionHtml({ session: sessionWithImages(), readBlob });
    const src = `data:image/png;base64,${png.toString("base64")}`;
    expect(html.split(`src="${src}"`).length - 1).toBe(2);
    expect(html).toContain('class="attachment"');
    // SVG (which can carry script) is never shown as an image: its description stands instead.
    expect(html).not.toContain("data:image/svg+xml");
    expect(html).toContain(`image/svg+xml, ${svg.length} bytes`);
  });

  it("without the blobs (or a blob that cannot be read) an image shows its description", () => {
    const html = renderSessionHtml({ session: sessionWithImages() });
    expect(html).not.toContain("<img");
    expect(html).toContain(`image/png, ${png.length} bytes`);
    const missing = renderSessionHtml({
      session: sessionWithImages(),
      readBlob: () => {
        throw new Error("missing");
      },
    });
    expect(missing).not.toContain("<img");
  });
});
