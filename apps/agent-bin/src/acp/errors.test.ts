import { openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { testTempDir } from "@tapedeck/test-harness";
import { describe, expect, it } from "vitest";
import { toRequestError } from "./errors";

/** The error Node throws for `run`, which must throw. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("toRequestError", () => {
  it("words a file-system error as the CLI does, naming the path, with its code as data", () => {
    // A home that is a file: every request's store work fails with ENOTDIR.
    const home = path.join(testTempDir("tapedeck-acp-errors-"), "home");
    writeFileSync(home, "");
    const journal = path.join(home, "changes.journal");
    const error = toRequestError(thrown(() => openSync(journal, "a")));
    expect(error.message).toBe(`cannot open ${journal}: not a directory.`);
    expect(error.data).toEqual({ code: "ENOTDIR", path: journal });
  });

  it("keeps the message of any other error", () => {
    expect(toRequestError(new Error("something else")).message).toBe("something else");
  });
});
