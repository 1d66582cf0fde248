import { markerProblems } from "@tapedeck/session/testing";
import { expect, it, vi } from "vitest";

const load = async () => {
  vi.resetModules();
  return import("./errors");
};

it("each session-store error is recognised by another copy of the module, with its code", async () => {
  const problems = markerProblems(await load(), await load(), [
    {
      name: "InvalidOffsetError",
      code: "INVALID_OFFSET",
      make: (module) => new module.InvalidOffsetError("byte 3", { sessionId: "s" }),
    },
    {
      name: "SessionHasForksError",
      code: "SESSION_HAS_FORKS",
      make: (module) => new module.SessionHasForksError("s", ["f"]),
    },
    {
      name: "InvalidForkPointError",
      code: "INVALID_FORK_POINT",
      make: (module) => new module.InvalidForkPointError("seq 9"),
    },
  ]);
  expect(problems).toEqual([]);
});
