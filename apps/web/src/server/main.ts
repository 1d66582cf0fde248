/**
 * `pnpm start`: serves the built client and the API on http://127.0.0.1:4848 (or `PORT`, `HOST`)
 * over `TAPEDECK_HOME` (default `~/.tapedeck`), keeping the index in sync while it runs.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODEL } from "@tapedeck/agent";
import { createSessionStore, makeDirectories } from "@tapedeck/session-store";
import { DEFAULT_RUN_IDLE_MS } from "./agent-runs";
import { createApp } from "./app";
import { demoLogsFromFixtures } from "./demo-fixtures";
import { listenRefusal } from "./http-guard";
import { startServer } from "./serve";
import { createSqliteIndex } from "./sqlite-index";
import { runIdleMs, startPaths } from "./start-options";
import { createTeamIndex } from "./team-index";

const env = process.env;
// Relative to the directory pnpm was called from, not apps/web where `pnpm start` runs.
const { home, cwd } = startPaths(env);
const token = env.TAPEDECK_WEB_TOKEN?.trim() || undefined;
const idle = runIdleMs(env, DEFAULT_RUN_IDLE_MS);
if ("error" in idle) {
  console.error(idle.error);
  process.exit(1);
}
const listenHost = env.HOST?.trim() || "127.0.0.1";
// Before anything is created: a refused start leaves no home and no index behind.
const refusal = listenRefusal(listenHost, token);
if (refusal !== undefined) {
  console.error(refusal);
  process.exit(1);
}
try {
  makeDirectories(home);
} catch (error) {
  // e.g. TAPEDECK_HOME names a file, or a directory we may not write: one line, no stack trace.
  const { code } = error as NodeJS.ErrnoException;
  console.error(
    `Cannot use ${home} as TAPEDECK_HOME (${code === "EEXIST" || code === "ENOTDIR" ? "it is not a directory" : (code ?? String(error))}): set TAPEDECK_HOME to a directory Tapedeck may write.`,
  );
  process.exit(1);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const clientDir = path.resolve(here, "../../dist/client");
if (!existsSync(path.join(clientDir, "index.html"))) {
  console.error(`The client is not built (${clientDir}); run "pnpm --filter @tapedeck/web build".`);
  process.exit(1);
}
const store = createSessionStore({ home });
const indexUrl = env.TAPEDECK_INDEX_URL?.trim() || undefined;
const index =
  indexUrl === undefined
    ? createSqliteIndex(store)
    : await createTeamIndex(store, indexUrl).catch((error: unknown) => {
        console.error(error instanceof Error ? error.message : String(error));
        process.exit(1);
      });
const started = Date.now();
await index.sync();
const demoLogs = await demoLogsFromFixtures();
const web = createApp({
  store,
  index,
  agent: { model: env.TAPEDECK_MODEL?.trim() || DEFAULT_MODEL, env, cwd, runIdleMs: idle.ms },
  clientDir,
  ...(demoLogs === undefined ? {} : { demoLogs }),
  ...(token === undefined ? {} : { token }),
});
web.live.start();
const port = Number(env.PORT ?? 4848);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number, got ${JSON.stringify(env.PORT)}.`);
  process.exit(1);
}
const server = await startServer(web.app, {
  host: listenHost,
  port,
  ...(token === undefined ? {} : { token }),
}).catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(
    code === "EADDRINUSE"
      ? `Port ${port} is in use: stop the other server or set PORT to another port.`
      : error instanceof Error
        ? error.message
        : String(error),
  );
  process.exit(1);
});
console.log(
  `Tapedeck viewer on ${server.url}  (home ${home}, ${indexUrl === undefined ? "indexed" : "pushed to the team index"} in ${Date.now() - started} ms)`,
);
const model = web.runs.status();
if (model.configured) console.log(`New sessions started here run in ${cwd}`);
else console.log(`Agent composer disabled: ${model.message}`);

// Runs in progress are cancelled and their logs closed (`turn/end` cancelled) before exiting.
const stop = () => {
  void web
    .close()
    .then(() => {
      index.close();
      return server.close();
    })
    .then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
