import type { SessionsContext } from "./context";

/** `sessions rm ID`: moves a log to the trash (refused while forks read from it). */
export async function rm(context: SessionsContext): Promise<number> {
  const { store, io, needId } = context;
  const sessionId = await needId();
  await store.delete(sessionId);
  io.stdout.write(`Moved ${sessionId} to ${store.home}/trash/\n`);
  return 0;
}
