/**
 * Images a source keeps inline in its content blocks: Claude Code's `image` blocks
 * (`source: {type: "base64", media_type, data}`), Codex's `input_image` items (`image_url`, a
 * `data:` URL), pi's `image` parts (`{data, mimeType}`), opencode's `file` parts with an `image/*`
 * `mime` and a `data:` URL, and Gemini CLI's `inlineData` parts (`{mimeType, data}`, `image/*`),
 * also inside tool results. The importer stores their bytes as blobs and lists them
 * as the event's `attachments`; the text keeps its `[image]` mark (what the model is sent).
 */
import { isRecord } from "./common";

/** One image's decoded bytes and media type. */
export interface InlineImage {
  mediaType: string;
  data: Buffer;
}

const dataUrl = /^data:([a-z]+\/[a-z0-9.+-]+);base64,/i;
const base64Text = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The image in one block, or `undefined` when it is none (or not inline base64). */
function imageOf(block: Record<string, unknown>): InlineImage | undefined {
  if (block.type === "image" && isRecord(block.source)) {
    const { type, media_type: mediaType, data } = block.source;
    if (type !== "base64" || typeof mediaType !== "string" || typeof data !== "string") {
      return undefined;
    }
    return decoded(mediaType, data);
  }
  if (block.type === "input_image" && typeof block.image_url === "string") {
    const match = dataUrl.exec(block.image_url);
    if (match === null) return undefined;
    return decoded(match[1]!.toLowerCase(), block.image_url.slice(match[0].length));
  }
  if (block.type === "image" && typeof block.data === "string") {
    return typeof block.mimeType === "string" ? decoded(block.mimeType, block.data) : undefined;
  }
  if (block.type === "file" && typeof block.url === "string") {
    const match = dataUrl.exec(block.url);
    if (match === null) return undefined;
    const mediaType = (stringOf(block.mime) ?? match[1]!).toLowerCase();
    return isImage(mediaType) ? decoded(mediaType, block.url.slice(match[0].length)) : undefined;
  }
  if (isRecord(block.inlineData)) {
    const { mimeType, data } = block.inlineData;
    if (typeof mimeType !== "string" || !isImage(mimeType) || typeof data !== "string") {
      return undefined;
    }
    return decoded(mimeType.toLowerCase(), data);
  }
  return undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Only images are kept (an opencode or Gemini part may carry a PDF or text file). */
function isImage(mediaType: string): boolean {
  return /^image\//i.test(mediaType);
}

function decoded(mediaType: string, base64: string): InlineImage | undefined {
  if (base64 === "" || !base64Text.test(base64)) return undefined;
  return { mediaType, data: Buffer.from(base64, "base64") };
}

/** Every inline image in `content` (a list of blocks; tool results' own `content` included). */
export function inlineImages(content: unknown): InlineImage[] {
  if (!Array.isArray(content)) return [];
  const found: InlineImage[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    const image = imageOf(block);
    if (image !== undefined) found.push(image);
    else if (Array.isArray(block.content)) found.push(...inlineImages(block.content));
  }
  return found;
}
