import { describe, expect, it } from "vitest";
import { systemErrorMessage } from "./command-failure";

describe("systemErrorMessage", () => {
  it("words a file-system error from its code, whatever its message says", () => {
    const error = Object.assign(new Error("wrapped by a library"), {
      code: "ENOENT",
      syscall: "open",
      path: "/x/out.jsonl",
    });
    expect(systemErrorMessage(error)).toBe("cannot open /x/out.jsonl: no such file or directory.");
  });

  it("leaves an error without a system code to the caller", () => {
    expect(systemErrorMessage(new Error("ENOENT: no such file"))).toBeUndefined();
  });
});
