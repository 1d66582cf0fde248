import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { planPreflight } from "./preflight.mjs";

const SCRIPT = path.join(import.meta.dirname, "preflight.mjs");
const ALL = ["chromium", "fonts-noto-cjk", "postgresql", "ripgrep"];

/** Files that make each package count as installed under a fake root. */
const PACKAGE_FILES: Record<string, string[]> = {
  chromium: ["usr/bin/chromium"],
  "fonts-noto-cjk": ["usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"],
  postgresql: ["usr/lib/postgresql/15/bin/initdb", "usr/lib/postgresql/15/bin/postgres"],
  ripgrep: ["bin/rg"],
};

const temporary: string[] = [];
afterEach(() => {
  for (const directory of temporary.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function writeExecutable(file: string, body = "#!/bin/sh\nexit 0\n") {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body);
  chmodSync(file, 0o755);
}

/**
 * A fake machine: a root holding the given packages' files and a PATH (`<root>/bin`) holding only
 * the given tools. `apt-get` and `sudo` fakes log their arguments; the apt-get fake "installs" a
 * package by creating its files, unless told to fail.
 */
function fakeMachine(options: {
  installed: string[];
  tools: Array<"apt-get" | "sudo" | "sudo-needs-password">;
  aptFails?: boolean;
}) {
  const root = mkdtempSync(path.join(os.tmpdir(), "preflight-"));
  temporary.push(root);
  const log = path.join(root, "calls.log");
  for (const name of options.installed) {
    for (const file of PACKAGE_FILES[name] ?? []) writeExecutable(path.join(root, file));
  }
  const install = Object.entries(PACKAGE_FILES)
    .map(
      ([name, files]) =>
        `    ${name}) ${files.map((f) => `mkdir -p "$(dirname "${root}/${f}")"; touch "${root}/${f}"; chmod +x "${root}/${f}"`).join("; ")};;`,
    )
    .join("\n");
  if (options.tools.includes("apt-get")) {
    writeExecutable(
      path.join(root, "bin/apt-get"),
      `#!/bin/sh\nPATH=/usr/bin:/bin\necho "apt-get $*" >> "${log}"\n${options.aptFails ? "exit 100\n" : ""}[ "$1" = install ] || exit 0\nfor p in "$@"; do\n  case "$p" in\n${install}\n  esac\ndone\n`,
    );
  }
  if (options.tools.includes("sudo")) {
    writeExecutable(
      path.join(root, "bin/sudo"),
      `#!/bin/sh\nPATH=${path.join(root, "bin")}:/usr/bin:/bin\necho "sudo $*" >> "${log}"\n[ "$1" = -n ] && shift\n[ "$1" = true ] && exit 0\nexec "$@"\n`,
    );
  }
  if (options.tools.includes("sudo-needs-password")) {
    writeExecutable(
      path.join(root, "bin/sudo"),
      `#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n`,
    );
  }
  const calls = () => {
    try {
      return readFileSync(log, "utf8").trim().split("\n");
    } catch {
      return [];
    }
  };
  return { root, calls };
}

function runPreflight(machine: { root: string }, uid: number) {
  const result = spawnSync(process.execPath, [SCRIPT], {
    encoding: "utf8",
    env: {
      PATH: path.join(machine.root, "bin"),
      TAPEDECK_PREFLIGHT_ROOT: machine.root,
      TAPEDECK_PREFLIGHT_UID: String(uid),
    },
  });
  return { status: result.status, stderr: result.stderr };
}

describe("planPreflight", () => {
  it("does nothing when every package is installed", () => {
    expect(
      planPreflight({ missing: [], isRoot: false, sudoWithoutPassword: false, hasAptGet: false }),
    ).toEqual({ action: "ok" });
  });

  it("installs as root without sudo, and through sudo when it needs no password", () => {
    expect(
      planPreflight({
        missing: ["chromium"],
        isRoot: true,
        sudoWithoutPassword: false,
        hasAptGet: true,
      }),
    ).toEqual({ action: "install", sudo: false, packages: ["chromium"] });
    expect(
      planPreflight({
        missing: ["chromium"],
        isRoot: false,
        sudoWithoutPassword: true,
        hasAptGet: true,
      }),
    ).toEqual({ action: "install", sudo: true, packages: ["chromium"] });
  });
});

describe("preflight script on a simulated machine", () => {
  it("exits 0 and calls nothing when everything is there", () => {
    const machine = fakeMachine({ installed: ALL, tools: ["apt-get"] });
    expect(runPreflight(machine, 0)).toEqual({ status: 0, stderr: "" });
    expect(machine.calls()).toEqual([]);
  });

  it("as root, installs exactly the missing packages with apt-get and passes", () => {
    const machine = fakeMachine({ installed: ["fonts-noto-cjk", "ripgrep"], tools: ["apt-get"] });
    const result = runPreflight(machine, 0);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("installing chromium (the viewer's browser tests)");
    expect(machine.calls()).toEqual([
      "apt-get update -q -o DPkg::Lock::Timeout=600",
      "apt-get install -y -q -o DPkg::Lock::Timeout=600 chromium postgresql",
    ]);
  });

  it("without root but with sudo that needs no password, installs through sudo", () => {
    const machine = fakeMachine({
      installed: ["chromium", "fonts-noto-cjk", "postgresql"],
      tools: ["apt-get", "sudo"],
    });
    expect(runPreflight(machine, 1000).status).toBe(0);
    expect(machine.calls()).toContain(
      "sudo -n apt-get install -y -q -o DPkg::Lock::Timeout=600 ripgrep",
    );
  });

  it("without root and without sudo, stops with one sentence naming the command", () => {
    const machine = fakeMachine({ installed: ["fonts-noto-cjk", "ripgrep"], tools: ["apt-get"] });
    const result = runPreflight(machine, 1000);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "pnpm test needs chromium postgresql, which are missing and cannot be installed without a password: run `sudo apt-get install -y chromium postgresql` (or the same as root without sudo), then pnpm test again.\n",
    );
    expect(machine.calls()).toEqual([]);
  });

  it("with a sudo that asks for a password, stops with the same sentence and installs nothing", () => {
    const machine = fakeMachine({
      installed: ["chromium", "fonts-noto-cjk", "postgresql"],
      tools: ["apt-get", "sudo-needs-password"],
    });
    const result = runPreflight(machine, 1000);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("run `sudo apt-get install -y ripgrep`");
    expect(machine.calls()).toEqual([]);
  });

  it("without apt-get, says to use the system's package manager", () => {
    const machine = fakeMachine({ installed: ["chromium"], tools: [] });
    const result = runPreflight(machine, 0);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      "pnpm test needs fonts-noto-cjk postgresql ripgrep, which are missing and apt-get is not available: install them with your system's package manager, then run pnpm test again.\n",
    );
  });

  it("fails with a sentence when apt-get cannot install", () => {
    const machine = fakeMachine({
      installed: ["fonts-noto-cjk", "postgresql", "ripgrep"],
      tools: ["apt-get"],
      aptFails: true,
    });
    const result = runPreflight(machine, 0);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "pnpm test needs chromium and `apt-get install -y chromium` did not install them: run it yourself to see why, then pnpm test again.",
    );
  });
});
