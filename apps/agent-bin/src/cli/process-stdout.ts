import { fs } from "./code-cache";

/**
 * Writes to the process's stdout. Nothing is built before it is used: making `process.stdout`
 * loads Node's stream, socket and tty modules (≈ 2–3 ms of a `sessions search`, which only
 * writes its hits), so output goes straight to the descriptor until something needs the stream.
 */
export function processStdout(): (text: string) => unknown {
  // `tapedeck … | head`: once the reader is gone, further output is dropped (no EPIPE stack
  // trace) and the command still finishes, so a run's log is completed, not cut off.
  let stdoutClosed = false;
  let stdout: NodeJS.WriteStream | undefined;
  const openStdout = (): NodeJS.WriteStream => {
    if (stdout === undefined) {
      stdout = process.stdout;
      stdout.on("error", (error: Error & { code?: string }) => {
        if (error.code !== "EPIPE") throw error;
        stdoutClosed = true;
      });
    }
    return stdout;
  };
  const write = (text: string): unknown => {
    if (stdoutClosed) return true;
    if (stdout !== undefined) return stdout.write(text);
    // Node's own stdout writes files, pipes and terminals synchronously too (on POSIX), so the
    // order of output is the same whichever way a line goes.
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += fs.writeSync(1, bytes, written);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "EPIPE") {
        stdoutClosed = true;
        return true;
      }
      // A descriptor that would block (EAGAIN) or is not writable this way: the stream handles it.
      return openStdout().write(bytes.subarray(written));
    }
  };
  return write;
}
