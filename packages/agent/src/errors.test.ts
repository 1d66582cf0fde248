import { markerProblems } from "@tapedeck/session/testing";
import { expect, it, vi } from "vitest";

const load = async () => {
  vi.resetModules();
  return {
    ...(await import("./tools/agent-tool")),
    ...(await import("./turn-context")),
    ...(await import("./compact-turn")),
  };
};

it("ToolError, RunCancelled and EmptySummaryError are recognised by another copy of their modules", async () => {
  const problems = markerProblems(await load(), await load(), [
    {
      name: "ToolError",
      code: "TOOL_ERROR",
      make: (module) => new module.ToolError("oldText was not found in a.txt."),
    },
    { name: "RunCancelled", code: "RUN_CANCELLED", make: (module) => new module.RunCancelled() },
    {
      name: "EmptySummaryError",
      code: "EMPTY_SUMMARY",
      make: (module) => new module.EmptySummaryError(),
    },
  ]);
  expect(problems).toEqual([]);
});
