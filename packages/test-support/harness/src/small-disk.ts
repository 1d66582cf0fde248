import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A directory whose file system holds only `bytes`, and how the test gets there. */
export interface SmallDisk {
  dir: string;
  /** `tmpfs`: a real file system that fills up; `injected`: see {@link smallDisk}. */
  how: "tmpfs" | "injected";
  /** Extra environment for the spawned binary (the injection preload, when used). */
  env: Record<string, string>;
  /**
   * For tests that write from their own process: with `injected`, installs the ENOSPC injection
   * in this process until the returned function is called; with `tmpfs`, does nothing.
   */
  injectHere(): () => void;
  unmount(): void;
}

const preload = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../__fixtures__/small-disk.cjs",
);

/**
 * A real small file system at `dir`: a tmpfs of `bytes` (tests run as root on Linux in CI, where
 * `mount -t tmpfs` works). Where mounting is impossible (not root, no mount namespace), the
 * spawned binary gets a preload instead (`env`), and the test's own process `injectHere()`, that
 * fail writes under `dir` with `ENOSPC` once `bytes` were written (`how: "injected"`), so the test
 * still runs and says which it was.
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
      injectHere: () =>
        (
          createRequire(import.meta.url)(preload) as {
            install(dir: string, bytes: number): () => void;
          }
        ).install(dir, bytes),
      unmount: () => undefined,
    };
  }
  return {
    dir,
    how: "tmpfs",
    env: {},
    injectHere: () => () => undefined,
    unmount: () => {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
    },
  };
}
