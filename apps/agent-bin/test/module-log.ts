/**
 * What a spawned `tapedeck` loads (issue #12: each command loads only its own code). A module hook
 * records every module Node loads, in order, then at exit Node's `process.moduleLoadList`
 * (`NativeModule crypto`, …: built-ins loaded by `require` too, which the hook does not see). The
 * same preload records `enableCompileCache` when the binary calls it (Node 22+ has it; on older
 * Nodes the preload supplies a stand-in, so the call is checked on every Node), and at exit how
 * many zod schemas the process built (each defines its `_zod` property once, when built).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tapedeckBinary } from "@tapedeck/test-harness";

/** The line the log holds where the binary called `module.enableCompileCache()`. */
export const COMPILE_CACHE_CALL = "call module.enableCompileCache";

/** The start of the log's last line: how many zod schemas the process built. */
export const ZOD_SCHEMAS_BUILT = "zod schemas built ";

/** A module log kept in `folder`. */
export interface ModuleLog {
  /** The Node flag that installs the hook: before the script, or in `NODE_OPTIONS`. */
  readonly flag: string;
  /** Empties the log (before the run to record). */
  clear(): void;
  /** What was recorded since the last `clear`: module URLs, built-ins, the compile-cache call. */
  read(): string[];
}

/** Writes the hook into `folder` (a test's temp folder) and returns its log. */
export function moduleLog(folder: string): ModuleLog {
  const log = path.join(folder, "modules.log");
  const hooks = path.join(folder, "hooks.mjs");
  const register = path.join(folder, "register.mjs");
  writeFileSync(log, "");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}`,
  );
  writeFileSync(
    register,
    `import { appendFileSync } from "node:fs";
import nodeModule, { register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)});
const original = nodeModule.enableCompileCache;
nodeModule.enableCompileCache = (...args) => {
  appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(`${COMPILE_CACHE_CALL}\n`)});
  return original?.apply(nodeModule, args);
};
let schemas = 0;
const define = Object.defineProperty;
Object.defineProperty = function (target, key, descriptor) {
  if (key === "_zod") schemas += 1;
  return define(target, key, descriptor);
};
process.on("exit", () =>
  appendFileSync(${JSON.stringify(log)}, process.moduleLoadList.join("\\n") + ${JSON.stringify(`\n${ZOD_SCHEMAS_BUILT}`)} + schemas),
);`,
  );
  return {
    flag: `--import=${register}`,
    clear: () => writeFileSync(log, ""),
    read: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
  };
}

/** The files of the bundle (`dist/`) among the loaded URLs. */
export function distFiles(urls: string[]): string[] {
  const dist = path.dirname(tapedeckBinary());
  return urls
    .filter((url) => url.startsWith("file:"))
    .map((url) => fileURLToPath(url))
    .filter((file) => path.dirname(file) === dist);
}
