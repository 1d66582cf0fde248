/**
 * True when a process with this pid exists on this machine (`EPERM`: it exists but belongs to
 * someone else). What the cleanups of killed runs and servers ask before removing their folders.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
