/**
 * A native addon (better-sqlite3, the index's driver) that this Node.js cannot load, in one
 * sentence. npm builds better-sqlite3 for the Node.js that installs tapedeck; run under another
 * major version (a user who switches with nvm, a system Node upgraded to 22 or 24), Node refuses
 * it with a three-line message and a stack (`ERR_DLOPEN_FAILED`), which every command that opens
 * the index printed as "unexpected error". The fix is the same for every cause (another Node's
 * ABI, another platform's binary, a missing system library): build it again with this Node.
 */

/** Node.js major versions by `NODE_MODULE_VERSION` (`process.versions.modules`), for the sentence. */
const NODE_OF_MODULE_VERSION: Record<string, string> = {
  "108": "18",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
};

/** `NODE_MODULE_VERSION n` and the Node.js major it belongs to, when known. */
function moduleVersion(version: string): string {
  const node = NODE_OF_MODULE_VERSION[version];
  return node === undefined ? version : `${version}, Node.js ${node}`;
}

/**
 * One sentence for an addon Node could not load (`ERR_DLOPEN_FAILED`): which package and where,
 * why, and the command that fixes it, e.g. `better-sqlite3 (/x/node_modules/better-sqlite3) was
 * built for another Node.js version (NODE_MODULE_VERSION 115, Node.js 20; this Node.js v22.23.5
 * needs 127): run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`;
 * `undefined` for any other error.
 */
export function nativeAddonMessage(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_DLOPEN_FAILED" || typeof message !== "string") return undefined;
  // The package: the last `node_modules/<name>` (or `<@scope/name>`) of the addon's path.
  const folder = [
    ...message.matchAll(/[^\s']*node_modules[\\/](?:@[^\\/\s']+[\\/])?[^\\/\s']+/g),
  ].at(-1)?.[0];
  const name = folder?.replace(/^.*node_modules[\\/]/, "");
  const addon = folder === undefined ? "a native module" : `${name} (${folder})`;
  const fix =
    name === undefined
      ? "reinstall tapedeck with this Node.js."
      : `run \`npm rebuild ${name}\` (or reinstall tapedeck) with this Node.js.`;
  const built =
    /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(
      message,
    );
  if (built !== null) {
    const [, theirs = "", ours = ""] = built;
    return `${addon} was built for another Node.js version (NODE_MODULE_VERSION ${moduleVersion(theirs)}; this Node.js ${process.version} needs ${ours}): ${fix}`;
  }
  // Another cause (another platform's binary, a missing system library): Node's first line.
  const cause = message.split("\n")[0]?.trim() ?? message;
  return `${addon} cannot be loaded by this Node.js (${process.version}): ${cause}. To fix it, ${fix}`;
}
