import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createSessionStore } from "@tapedeck/session-store";
import { testTempDir } from "@tapedeck/test-temp";
import { describe, expect, it, vi } from "vitest";
import { IndexDriverError } from "./errors";
import { toIndexDriverError } from "./index-driver";

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

describe("toIndexDriverError", () => {
  it("names the package, both ABIs with their Node.js, and the rebuild command", () => {
    const error = toIndexDriverError(otherAbi(ADDON));
    expect(IndexDriverError.isInstance(error)).toBe(true);
    expect(error?.code).toBe("INDEX_DRIVER_UNLOADABLE");
    expect(error?.message).toBe(
      `better-sqlite3 (/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3) was built for another Node.js version (NODE_MODULE_VERSION 115, Node.js 20; this Node.js ${process.version} needs 127): run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`,
    );
    expect(error).toMatchObject({
      packageFolder: "/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3",
      builtFor: "115",
      needs: "127",
    });
  });

  it("takes the innermost package of a pnpm store path, and scoped names whole", () => {
    const pnpm = "/w/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3";
    expect(toIndexDriverError(otherAbi(`${pnpm}/build/Release/x.node`))?.packageFolder).toBe(pnpm);
    expect(toIndexDriverError(otherAbi("/w/node_modules/@scope/addon/x.node"))?.message).toMatch(
      /^@scope\/addon \(\/w\/node_modules\/@scope\/addon\) .*npm rebuild @scope\/addon/,
    );
  });

  it("words another cause (a binary of another platform) with Node's first line", () => {
    const error = Object.assign(new Error(`${ADDON}: invalid ELF header`), {
      code: "ERR_DLOPEN_FAILED",
    });
    expect(toIndexDriverError(error)?.message).toBe(
      `better-sqlite3 (/usr/lib/node_modules/tapedeck/node_modules/better-sqlite3) cannot be loaded by this Node.js (${process.version}): ${ADDON}: invalid ELF header. To fix it, run \`npm rebuild better-sqlite3\` (or reinstall tapedeck) with this Node.js.`,
    );
  });

  it("is undefined for any other error", () => {
    expect(toIndexDriverError(new Error("NODE_MODULE_VERSION 115"))).toBeUndefined();
    expect(toIndexDriverError(undefined)).toBeUndefined();
  });
});

describe("openIndex with a driver this Node cannot load", () => {
  it("throws an IndexDriverError with Node's real refusal as cause, and leaves no empty index", async () => {
    const folder = testTempDir("tapedeck-index-driver-");
    // A real refusal: Node's own ERR_DLOPEN_FAILED for a file that is no addon.
    const addon = path.join(folder, "node_modules", "better-sqlite3", "better_sqlite3.node");
    mkdirSync(path.dirname(addon), { recursive: true });
    writeFileSync(addon, "not an ELF file");
    const refusal = (() => {
      try {
        process.dlopen({ exports: {} }, addon);
      } catch (error) {
        return error;
      }
      throw new Error("expected dlopen to fail");
    })();
    vi.resetModules();
    vi.doMock("@tapedeck/session-query/sqlite", () => ({
      createSqliteQueryEngine: () => {
        throw refusal;
      },
    }));
    try {
      const { openIndex } = await import("./query-index");
      const home = path.join(folder, "home");
      const thrown = (() => {
        try {
          openIndex(createSessionStore({ home }));
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(IndexDriverError.isInstance(thrown)).toBe(true);
      expect((thrown as IndexDriverError).cause).toBe(refusal);
      expect((thrown as IndexDriverError).message).toMatch(
        new RegExp(
          `^better-sqlite3 \\(${path.dirname(addon)}\\) cannot be loaded by this Node\\.js`,
        ),
      );
      expect(existsSync(path.join(home, "index.sqlite"))).toBe(false);
    } finally {
      vi.doUnmock("@tapedeck/session-query/sqlite");
      vi.resetModules();
    }
  });
});
