import path from "node:path";
import { defineConfig, type Options } from "tsup";

/**
 * zod re-exports its 48 error-message locales (`z.locales`, ≈ 300 KB, half of zod's bytes in the
 * bundle) from a namespace esbuild cannot tree-shake; every command read and compiled them. The
 * CLI uses only English (zod's default, `en`, which `zod/v4/classic` imports itself), so the
 * bundle's `z.locales` holds only `en`. Validation is untouched.
 */
const zodEnglishOnly: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), "../locales"), namespace: "zod-en" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: args.path,
      loader: "js",
    }));
  },
};

/**
 * `import Database from "better-sqlite3"` in an ES module makes Node load the CommonJS package
 * through its ESM translator, which first scans `lib/index.js` and `lib/database.js` with the
 * CommonJS export lexer (≈ 4 ms of every `sessions` command). The bundle's `require` (see the
 * banner) loads it directly; the package stays external.
 */
const sqliteByRequire: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "better-sqlite3-by-require",
  setup(build) {
    build.onResolve({ filter: /^better-sqlite3$/ }, (args) =>
      args.namespace === "sqlite-require"
        ? { path: args.path, external: true }
        : { path: "better-sqlite3", namespace: "sqlite-require" },
    );
    build.onLoad({ filter: /.*/, namespace: "sqlite-require" }, () => ({
      contents: 'module.exports = require("better-sqlite3");',
      loader: "js",
    }));
  },
};

/**
 * Bundles the `tapedeck` binary into one ESM file: Node 20 cannot run the workspace's `.ts`
 * sources, and one file starts faster. `better-sqlite3` is native and stays external.
 */
const cli: Options = {
  entry: { tapedeck: "src/bin.ts" },
  outDir: "dist",
  format: ["esm"],
  outExtension: () => ({ js: ".mjs" }),
  platform: "node",
  target: "node20",
  bundle: true,
  // Everything but the native module is inlined (noExternal wins over external, so exclude it
  // here); `better-sqlite3` is left to `sqliteByRequire`, which keeps it external.
  noExternal: [/^(?!pg-native$)/],
  // `pg-native` is pg's optional libpq binding, never installed: pg only loads it on request.
  external: ["pg-native"],
  // Lazily imported commands (`tapedeck mcp` and the MCP SDK) go to their own chunks, so the
  // other commands neither read nor compile them.
  splitting: true,
  esbuildPlugins: [zodEnglishOnly, sqliteByRequire],
  sourcemap: false,
  // Cold start is dominated by reading and compiling the bundle: drop whitespace and simplify
  // syntax (about half the bytes) but keep identifiers, so stack traces stay readable.
  esbuildOptions(options) {
    options.minifyWhitespace = true;
    options.minifySyntax = true;
  },
  // Not `clean`: test runs and benchmarks spawn dist/tapedeck.mjs while another run rebuilds it.
  clean: false,
  shims: false,
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __tapedeckCreateRequire } from "node:module";\nconst require = __tapedeckCreateRequire(import.meta.url);',
  },
};

/**
 * `import-worker.mjs`: the entry of `tapedeck import`'s worker threads (see
 * `packages/importers/src/import-pool.ts`, which finds it next to the bundle's chunks). A bundle
 * of its own, without splitting, so the CLI's chunks stay as they are.
 */
const importWorker: Options = {
  ...cli,
  entry: { "import-worker": "../../packages/importers/src/import-worker.ts" },
  splitting: false,
};

export default defineConfig([cli, importWorker]);
