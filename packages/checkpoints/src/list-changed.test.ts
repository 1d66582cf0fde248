import { describe, expect, it } from "vitest";
import { parseStatus } from "./list-changed";

const HASH = "0123456789012345678901234567890123456789";

describe("parseStatus", () => {
  it("lists work-tree changes, unmerged and untracked paths, spaces kept, index-only changes left out", () => {
    const records = [
      `1 .M N... 100644 100644 100644 ${HASH} ${HASH} src/a file.ts`,
      `1 .D N... 100644 100644 000000 ${HASH} ${HASH} gone.txt`,
      `1 .T N... 100644 100644 120000 ${HASH} ${HASH} link`,
      `1 A. N... 000000 100644 100644 ${HASH} ${HASH} recorded only.txt`,
      `2 RM N... 100644 100644 100644 ${HASH} ${HASH} R100 new name.txt`,
      "old name.txt",
      `u UU N... 100644 100644 100644 100644 ${HASH} ${HASH} ${HASH} both.txt`,
      "? new/untracked file.md",
      "! ignored.log",
      "# branch.oid (initial)",
    ];
    const output = Buffer.from(`${records.join("\0")}\0`);
    expect(parseStatus(output)).toEqual([
      "src/a file.ts",
      "gone.txt",
      "link",
      "new name.txt",
      "old name.txt",
      "both.txt",
      "new/untracked file.md",
    ]);
  });

  it("reads nothing from empty output", () => {
    expect(parseStatus(Buffer.alloc(0))).toEqual([]);
  });
});
