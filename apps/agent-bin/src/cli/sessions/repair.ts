import { repairInterruptedRun } from "@tapedeck/agent";
import { EventLogCorruptError, TapedeckError } from "@tapedeck/session";
import type { SessionsContext } from "./context";

/** `sessions repair ID`: moves a torn tail aside and closes an interrupted turn. */
export async function repair(context: SessionsContext): Promise<number> {
  const { store, io, needId } = context;
  const sessionId = await needId();
  const report = await store.repair(sessionId).catch((error: unknown) => {
    if (EventLogCorruptError.isInstance(error) && error.code !== "TORN_TAIL") {
      throw new TapedeckError(
        error.code,
        `${error.message}. repair only moves an unfinished last line aside; fix that line by hand, or move the session to the trash with "tapedeck sessions rm ${sessionId}".`,
      );
    }
    throw error;
  });
  if (report.action === "moved-torn-tail") {
    io.stdout.write(`Moved a torn tail of ${report.bytesMoved} bytes to ${report.sidecarPath}\n`);
  }
  const writer = await store.openWriter(sessionId);
  try {
    const repairs = await repairInterruptedRun(writer.session);
    if (repairs.length > 0) {
      await writer.append(repairs);
      io.stdout.write(`Closed the interrupted turn: ${repairs.length} repair event(s) appended.\n`);
    } else if (report.action === "none") {
      io.stdout.write("Nothing to repair.\n");
    }
  } finally {
    await writer.close();
  }
  return 0;
}
