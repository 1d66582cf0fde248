import { markerProblems } from "@tapedeck/session/testing";
import { expect, it, vi } from "vitest";

const load = async () => {
  vi.resetModules();
  return import("./errors");
};

it("each host error is recognised by another copy of the module, with its code", async () => {
  const problems = markerProblems(await load(), await load(), [
    {
      name: "AmbiguousSessionIdError",
      code: "AMBIGUOUS_SESSION_ID",
      make: (module) => new module.AmbiguousSessionIdError("0193", ["a", "b"]),
    },
    {
      name: "NoSessionToContinueError",
      code: "NO_SESSION_TO_CONTINUE",
      make: (module) => new module.NoSessionToContinueError("/w"),
    },
    {
      name: "SessionCwdMissingError",
      code: "SESSION_CWD_MISSING",
      make: (module) => new module.SessionCwdMissingError("s", "/gone"),
    },
    {
      name: "ModelNotConfiguredError",
      code: "MODEL_NOT_CONFIGURED",
      make: (module) => new module.ModelNotConfiguredError("no key"),
    },
    {
      name: "IndexDriverError",
      code: "INDEX_DRIVER_UNLOADABLE",
      make: (module) =>
        new module.IndexDriverError("m", {
          packageFolder: undefined,
          builtFor: undefined,
          needs: undefined,
          cause: undefined,
        }),
    },
  ]);
  expect(problems).toEqual([]);
});
