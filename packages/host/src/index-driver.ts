/**
 * The index's driver (better-sqlite3, a native addon) that this Node.js cannot load, as an
 * `IndexDriverError` with one sentence. npm builds better-sqlite3 for the Node.js that installs
 * tapedeck; run under another major version (a person who switches with nvm, a system Node
 * upgraded to 22 or 24), Node refuses it (`ERR_DLOPEN_FAILED`) with a three-line message, and
 * every surface that opens the index printed that with a stack ("unexpected error" in the CLI,
 * an internal error in ACP and MCP). The fix is the same whatever the cause (another Node's ABI,
 * another platform's binary, a missing system library): build it again with this Node.js.
 */
import { IndexDriverError } from "./errors";

/** Node.js major versions by `NODE_MODULE_VERSION` (`process.versions.modules`). */
const NODE_OF_MODULE_VERSION: Record<string, string> = {
  "108": "18",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
};

/** `NODE_MODULE_VERSION n`, and the Node.js major it belongs to when known. */
function moduleVersion(version: string): string {
  const node = NODE_OF_MODULE_VERSION[version];
  return node === undefined ? version : `${version}, Node.js ${node}`;
}

/**
 * `error` as an {@link IndexDriverError} when it is Node's refusal to load a native addon
 * (`ERR_DLOPEN_FAILED`), e.g. `better-sqlite3 (/x/node_modules/better-sqlite3) was built for
 * another Node.js version (NODE_MODULE_VERSION 115, Node.js 20; this Node.js v22.23.5 needs 127):
 * run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`; else `undefined`.
 */
export function toIndexDriverError(error: unknown): IndexDriverError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_DLOPEN_FAILED" || typeof message !== "string") return undefined;
  // The package: the last `node_modules/<name>` (or `<@scope/name>`) of the addon's path.
  const packageFolder = [
    ...message.matchAll(/[^\s']*node_modules[\\/](?:@[^\\/\s']+[\\/])?[^\\/\s']+/g),
  ].at(-1)?.[0];
  const name = packageFolder?.replace(/^.*node_modules[\\/]/, "") ?? "better-sqlite3";
  const addon = packageFolder === undefined ? name : `${name} (${packageFolder})`;
  const fix = `run \`npm rebuild ${name}\` (or reinstall tapedeck) with this Node.js.`;
  const abi =
    /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(
      message,
    );
  const [, builtFor, needs] = abi ?? [];
  const sentence =
    builtFor !== undefined && needs !== undefined
      ? `${addon} was built for another Node.js version (NODE_MODULE_VERSION ${moduleVersion(builtFor)}; this Node.js ${process.version} needs ${needs}): ${fix}`
      : // Another cause (another platform's binary, a missing system library): Node's first line.
        `${addon} cannot be loaded by this Node.js (${process.version}): ${message.split("\n")[0]?.trim()}. To fix it, ${fix}`;
  return new IndexDriverError(sentence, { packageFolder, builtFor, needs, cause: error });
}
