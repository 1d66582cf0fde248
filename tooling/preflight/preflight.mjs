#!/usr/bin/env node
/**
 * `pnpm test` preflight: makes sure the system packages the suites need are installed before any
 * suite runs, installing the missing ones with apt-get when this user can (root, or sudo without a
 * password), and otherwise stopping with one sentence that names the single command to run.
 * Nothing is skipped: a suite that needs a missing part fails, so this script is what keeps a
 * fresh machine's `pnpm test` from failing half-way.
 *
 * Plain Node (no dependencies, no TypeScript) because it must run on a machine that has nothing.
 * Test seams, used only by preflight.test.ts: TAPEDECK_PREFLIGHT_ROOT re-roots the file checks,
 * TAPEDECK_PREFLIGHT_UID replaces the process's uid.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The Debian packages the suites need, what needs them, and how to tell one is installed.
 * @type {ReadonlyArray<{ name: string, neededBy: string, isInstalled: (probe: Probe) => boolean }>}
 */
export const REQUIREMENTS = [
  {
    name: "chromium",
    neededBy: "the viewer's browser tests",
    isInstalled: (probe) =>
      probe.env.TAPEDECK_CHROMIUM
        ? probe.isExecutable(probe.env.TAPEDECK_CHROMIUM, { rooted: false })
        : probe.isExecutable("/usr/bin/chromium"),
  },
  {
    name: "fonts-noto-cjk",
    neededBy: "Chinese text in the browser tests' screenshots",
    isInstalled: (probe) => probe.exists("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
  },
  {
    name: "postgresql",
    neededBy: "the team index tests, against a real PostgreSQL server",
    isInstalled: (probe) =>
      probe
        .list("/usr/lib/postgresql")
        .some(
          (version) =>
            probe.isExecutable(`/usr/lib/postgresql/${version}/bin/initdb`) &&
            probe.isExecutable(`/usr/lib/postgresql/${version}/bin/postgres`),
        ),
  },
  {
    name: "ripgrep",
    neededBy: "the benchmarks' baseline",
    isInstalled: (probe) => probe.onPath("rg"),
  },
];

/**
 * @typedef {object} Probe What the preflight may ask of the machine.
 * @property {Record<string, string | undefined>} env
 * @property {(file: string) => boolean} exists
 * @property {(file: string, options?: { rooted?: boolean }) => boolean} isExecutable
 * @property {(directory: string) => string[]} list
 * @property {(command: string) => boolean} onPath
 */

/** @param {Record<string, string | undefined>} env @returns {Probe} */
export function systemProbe(env) {
  const root = env.TAPEDECK_PREFLIGHT_ROOT ?? "/";
  /** @param {string} file */
  const rooted = (file) => path.join(root, file);
  /** @param {string} file @param {{ rooted?: boolean }} [options] */
  const isExecutable = (file, { rooted: useRoot = true } = {}) => {
    try {
      accessSync(useRoot ? rooted(file) : file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return {
    env,
    exists: (file) => existsSync(rooted(file)),
    isExecutable,
    list: (directory) => {
      try {
        return readdirSync(rooted(directory));
      } catch {
        return [];
      }
    },
    onPath: (command) =>
      (env.PATH ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .some((directory) => isExecutable(path.join(directory, command), { rooted: false })),
  };
}

/**
 * What to do, from what is missing and who we are. Pure, so every branch is tested.
 * @param {{ missing: string[], isRoot: boolean, sudoWithoutPassword: boolean, hasAptGet: boolean }} facts
 * @returns {{ action: "ok" } | { action: "install", sudo: boolean, packages: string[] } | { action: "stop", sentence: string }}
 */
export function planPreflight({ missing, isRoot, sudoWithoutPassword, hasAptGet }) {
  if (missing.length === 0) return { action: "ok" };
  const list = missing.join(" ");
  if (!hasAptGet) {
    return {
      action: "stop",
      sentence: `pnpm test needs ${list}, which are missing and apt-get is not available: install them with your system's package manager, then run pnpm test again.`,
    };
  }
  if (isRoot || sudoWithoutPassword) return { action: "install", sudo: !isRoot, packages: missing };
  return {
    action: "stop",
    sentence: `pnpm test needs ${list}, which are missing and cannot be installed without a password: run \`sudo apt-get install -y ${list}\` (or the same as root without sudo), then pnpm test again.`,
  };
}

/** @param {Probe} probe */
export function missingPackages(probe) {
  return REQUIREMENTS.filter((requirement) => !requirement.isInstalled(probe)).map((r) => r.name);
}

/** @param {string} command @param {string[]} args @param {Record<string, string | undefined>} env */
function run(command, args, env) {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
  return result.status === 0;
}

/** Runs the preflight; returns the exit code. */
export function main(env = process.env) {
  const probe = systemProbe(env);
  const missing = missingPackages(probe);
  const uid = env.TAPEDECK_PREFLIGHT_UID ?? String(process.getuid?.() ?? 0);
  const isRoot = uid === "0";
  const hasAptGet = probe.onPath("apt-get");
  const sudoWithoutPassword = !isRoot && probe.onPath("sudo") && run("sudo", ["-n", "true"], env);
  const plan = planPreflight({ missing, isRoot, sudoWithoutPassword, hasAptGet });
  if (plan.action === "ok") return 0;
  if (plan.action === "stop") {
    process.stderr.write(`${plan.sentence}\n`);
    return 1;
  }
  const why = REQUIREMENTS.filter((r) => plan.packages.includes(r.name))
    .map((r) => `${r.name} (${r.neededBy})`)
    .join(", ");
  process.stderr.write(`preflight: installing ${why} with apt-get\n`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: "noninteractive" };
  /** @param {string[]} args */
  const apt = (args) =>
    plan.sudo ? run("sudo", ["-n", "apt-get", ...args], aptEnv) : run("apt-get", args, aptEnv);
  const lock = ["-o", "DPkg::Lock::Timeout=600"];
  const installed =
    apt(["update", "-q", ...lock]) && apt(["install", "-y", "-q", ...lock, ...plan.packages]);
  const stillMissing = missingPackages(probe);
  if (!installed || stillMissing.length > 0) {
    const names = (stillMissing.length > 0 ? stillMissing : plan.packages).join(" ");
    process.stderr.write(
      `pnpm test needs ${names} and \`${plan.sudo ? "sudo " : ""}apt-get install -y ${names}\` did not install them: run it yourself to see why, then pnpm test again.\n`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.exitCode = main();
}
