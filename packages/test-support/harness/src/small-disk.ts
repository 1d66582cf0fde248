import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A directory whose file system holds only `bytes`, and how the test gets there. */
export interface SmallDisk {
  dir: string;
  /** `tmpfs`: a real file system that fills up; `injected`: see {@link smallDisk}. */
  how: "tmpfs" | "injected";
  /** Extra environment for the spawned binary (the injection preload, when used). */
  env: Record<string, string>;
  /** Makes the file system read-only (tmpfs only). */
  makeReadOnly(): void;
  unmount(): void;
}

const preload = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../__fixtures__/small-disk.cjs",
);

/**
 * A real small file system at `dir`: a tmpfs of `bytes` (tests run as root on Linux in CI, where
 * `mount -t tmpfs` works). Where mounting is impossible (not root, no mount namespace), the
 * spawned binary gets a preload instead that fails its writes under `dir` with `ENOSPC` once
 * `bytes` were written (`how: "injected"`), so the test still runs and says which it was.
 */
export function smallDisk(dir: string, bytes: number): SmallDisk {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir], { stdio: "pipe" });
  } catch {
    return {
      dir,
      how: "injected",
      env: {
        NODE_OPTIONS: `--require ${preload}`,
        TAPEDECK_TEST_DISK_DIR: dir,
        TAPEDECK_TEST_DISK_BYTES: String(bytes),
      },
      makeReadOnly: () => {
        throw new Error("a read-only file system needs mount (run the tests as root)");
      },
      unmount: () => undefined,
    };
  }
  return {
    dir,
    how: "tmpfs",
    env: {},
    makeReadOnly: () => {
      execFileSync("mount", ["-o", "remount,ro", dir], { stdio: "pipe" });
    },
    unmount: () => {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
    },
  };
}
