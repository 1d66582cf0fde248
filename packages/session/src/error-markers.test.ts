import { describe, expect, it, vi } from "vitest";
import { markerProblems } from "./error-markers";

const load = async () => {
  vi.resetModules();
  return import("./errors");
};

describe("markerProblems", () => {
  it("finds none for the session errors across two module copies", async () => {
    const problems = markerProblems(await load(), await load(), [
      {
        name: "SessionNotFoundError",
        code: "SESSION_NOT_FOUND",
        make: (module) => new module.SessionNotFoundError("s"),
      },
      {
        name: "SessionBusyError",
        code: "SESSION_BUSY",
        make: (module) => new module.SessionBusyError("s"),
      },
      {
        name: "InvalidSessionIdError",
        code: "INVALID_SESSION_ID",
        make: (module) => new module.InvalidSessionIdError("x"),
      },
    ]);
    expect(problems).toEqual([]);
  });

  it("reports an isInstance that relies on instanceof, and a wrong code", async () => {
    // Each call makes a new class, as a second bundle would.
    const copy = async () => {
      class Plain extends Error {
        static isInstance(error: unknown): boolean {
          return error instanceof Plain;
        }
      }
      return { Plain };
    };
    const problems = markerProblems(await copy(), await copy(), [
      { name: "Plain", code: "PLAIN", make: (module) => new module.Plain("x") },
    ]);
    expect(problems).toEqual([
      "Plain: not recognised by the other copy",
      "Plain: not a TapedeckError",
      "Plain: code undefined, expected PLAIN",
    ]);
  });
});
