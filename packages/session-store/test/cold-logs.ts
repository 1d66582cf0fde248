/**
 * Test helpers for cold (compressed) logs: a large one written without ever holding its plain
 * bytes, and where a zstd block starts (to damage it on purpose).
 */
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Binding from "zstd-napi/binding";
import { compressBytes } from "../src/zstd";

const binding = createRequire(import.meta.url)("zstd-napi/binding") as typeof Binding;

/**
 * Replaces plain log `plainPath` (its header line, `header`) by a cold log in the store's layout
 * (a frame of line 1, then one frame of `lines` lines made by `line(seq)`), compressed in a
 * stream so that the plain bytes are never all in memory. Returns the plain size.
 */
export function writeColdLogStreaming(
  plainPath: string,
  header: Buffer,
  lines: number,
  line: (seq: number) => string,
): number {
  let restSize = 0;
  for (let seq = 1; seq <= lines; seq += 1) restSize += Buffer.byteLength(line(seq));
  const fd = openSync(`${plainPath}.zst`, "wx");
  try {
    writeSync(fd, compressBytes(header));
    const context = new binding.CCtx();
    context.setParameter(binding.CParameter.compressionLevel, 1);
    context.setPledgedSrcSize(restSize);
    const out = Buffer.allocUnsafe(binding.cStreamOutSize());
    const feed = (input: Buffer, end: boolean) => {
      let rest = input;
      for (;;) {
        const directive = end ? binding.EndDirective.end : binding.EndDirective.continue;
        const [left, produced, consumed] = context.compressStream2(out, rest, directive);
        if (produced > 0) writeSync(fd, out, 0, produced);
        rest = rest.subarray(consumed);
        if (end ? left === 0 : rest.length === 0) return;
      }
    };
    let batch: string[] = [];
    for (let seq = 1; seq <= lines; seq += 1) {
      batch.push(line(seq));
      if (batch.length === 256) {
        feed(Buffer.from(batch.join("")), false);
        batch = [];
      }
    }
    feed(Buffer.from(batch.join("")), true);
  } finally {
    closeSync(fd);
  }
  rmSync(plainPath);
  return header.length + restSize;
}

/** The offset of block `index` (0-based) of the zstd frame at `start` of `data`. */
export function zstdBlockAt(data: Buffer, start: number, index: number): number {
  const descriptor = data[start + 4] ?? 0;
  const singleSegment = (descriptor >> 5) & 1;
  const sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6] ?? 0;
  let position =
    start + 5 + (singleSegment ? 0 : 1) + ([0, 1, 2, 4][descriptor & 3] ?? 0) + sizeBytes;
  for (let block = 0; block < index; block += 1) {
    const header = data.readUIntLE(position, 3);
    if (header & 1) throw new Error(`the frame has only ${block + 1} blocks`);
    const type = (header >> 1) & 3;
    position += 3 + (type === 1 ? 1 : header >> 3);
  }
  return position;
}
