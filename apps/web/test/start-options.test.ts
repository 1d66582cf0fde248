import path from "node:path";
import { defaultHome } from "@tapedeck/session-store";
import { describe, expect, it } from "vitest";
import { runIdleMs, startPaths } from "../src/server/start-options";

describe("startPaths (pnpm start)", () => {
  it("new sessions run where pnpm was called from (INIT_CWD), not in apps/web", () => {
    expect(startPaths({ INIT_CWD: "/home/me/project" }, "/clone/apps/web")).toEqual({
      home: defaultHome(),
      cwd: "/home/me/project",
    });
  });

  it("a relative TAPEDECK_HOME resolves against INIT_CWD; an absolute one is kept", () => {
    expect(
      startPaths({ INIT_CWD: "/home/me/project", TAPEDECK_HOME: ".td" }, "/clone/apps/web").home,
    ).toBe(path.resolve("/home/me/project", ".td"));
    expect(startPaths({ INIT_CWD: "/x", TAPEDECK_HOME: "/abs/home" }, "/clone/apps/web").home).toBe(
      "/abs/home",
    );
  });

  it("without pnpm (no INIT_CWD), the process's directory", () => {
    expect(startPaths({ TAPEDECK_HOME: "h" }, "/srv")).toEqual({ home: "/srv/h", cwd: "/srv" });
  });
});

describe("runIdleMs (TAPEDECK_WEB_RUN_IDLE_MS)", () => {
  it("is the default when unset or blank, the number of milliseconds when set", () => {
    expect(runIdleMs({}, 300_000)).toEqual({ ms: 300_000 });
    expect(runIdleMs({ TAPEDECK_WEB_RUN_IDLE_MS: " " }, 300_000)).toEqual({ ms: 300_000 });
    expect(runIdleMs({ TAPEDECK_WEB_RUN_IDLE_MS: "2500" }, 300_000)).toEqual({ ms: 2500 });
  });

  it("refuses anything but a positive integer, naming the variable", () => {
    for (const text of ["0", "-5", "1.5", "5m", "1e3"]) {
      const result = runIdleMs({ TAPEDECK_WEB_RUN_IDLE_MS: text }, 300_000);
      expect(result).toEqual({ error: expect.stringContaining("TAPEDECK_WEB_RUN_IDLE_MS") });
    }
  });
});
