import { describe, expect, it } from "vitest";
import { toRequestError } from "../acp/errors";
import { commandFailure } from "./command-failure";
import { nativeAddonMessage } from "./native-addon-error";

/** What Node throws for an addon of another ABI (Node 22 loading a Node 20 build; its text). */
function otherAbi(file: string): Error {
  return Object.assign(
    new Error(
      `The module '${file}'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
    ),
    { code: "ERR_DLOPEN_FAILED" },
  );
}

const ADDON =
  "/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3/build/Release/better_sqlite3.node";

describe("nativeAddonMessage", () => {
  it("names the package, both ABIs with their Node.js, and the rebuild command", () => {
    expect(nativeAddonMessage(otherAbi(ADDON))).toBe(
      `better-sqlite3 (/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3) was built for another Node.js version (NODE_MODULE_VERSION 115, Node.js 20; this Node.js ${process.version} needs 127): run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`,
    );
  });

  it("takes the innermost package of a pnpm store path, and scoped names whole", () => {
    const pnpm = "/w/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3";
    expect(nativeAddonMessage(otherAbi(`${pnpm}/build/Release/better_sqlite3.node`))).toMatch(
      new RegExp(`^better-sqlite3 \\(${pnpm.replaceAll(".", "\\.")}\\) was built`),
    );
    expect(nativeAddonMessage(otherAbi("/w/node_modules/@scope/addon/x.node"))).toMatch(
      /^@scope\/addon \(\/w\/node_modules\/@scope\/addon\) .*npm rebuild @scope\/addon/,
    );
  });

  it("words another cause (a binary of another platform) with Node's first line", () => {
    const error = Object.assign(new Error(`${ADDON}: invalid ELF header`), {
      code: "ERR_DLOPEN_FAILED",
    });
    expect(nativeAddonMessage(error)).toBe(
      `better-sqlite3 (/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3) cannot be loaded by this Node.js (${process.version}): ${ADDON}: invalid ELF header. To fix it, run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`,
    );
  });

  it("is undefined for any other error", () => {
    expect(nativeAddonMessage(new Error("NODE_MODULE_VERSION 115"))).toBeUndefined();
    expect(nativeAddonMessage(undefined)).toBeUndefined();
  });

  it("is what the CLI prints (exit 1, one line) and the ACP error's message", () => {
    let printed = "";
    const code = commandFailure(otherAbi(ADDON), {
      stderr: { write: (text: string) => (printed += text) },
    });
    expect(code).toBe(1);
    expect(printed).toBe(`tapedeck: ${nativeAddonMessage(otherAbi(ADDON))}\n`);
    const error = toRequestError(otherAbi(ADDON));
    expect(error.message).toBe(nativeAddonMessage(otherAbi(ADDON)));
    expect(error.data).toEqual({ code: "ERR_DLOPEN_FAILED" });
  });
});
