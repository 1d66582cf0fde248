/**
 * Pushes a home in a child process and prints one line per progress report, so a test can
 * `kill -9` it midway. Usage: push-child.ts <url> <home>
 */
import { createSessionStore } from "@tapedeck/session-store";
import { createPostgresQueryEngine } from "../postgres-engine";

const [url, home] = process.argv.slice(2);
if (url === undefined || home === undefined) throw new Error("usage: push-child.ts <url> <home>");
const engine = await createPostgresQueryEngine({ url });
await engine.push(createSessionStore({ home }), {
  batchSize: 20,
  sessionsPerTransaction: 1,
  onProgress: (progress) => process.stdout.write(`${progress.sessionsDone}\n`),
});
await engine.close();
