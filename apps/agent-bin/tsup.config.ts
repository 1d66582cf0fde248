import path from "node:path";
import { defineConfig, type Options } from "tsup";
import { acpSchemasOnUse } from "./build/schemas-on-use";

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
 * `sessions/fresh-search.ts` is bundled on its own (`freshSearch` below) as `fresh-search.cjs`,
 * which the binary loads through a V8 code cache (`src/cli/code-cache.ts`): esbuild's code
 * splitting puts whole modules into chunks, so through the shared chunks a split search would load
 * all of zod's core (≈ 215 KB) and every module another command shares with it; a bundle of its
 * own keeps only the statements the search uses. CommonJS, because V8's code cache (`vm.Script`'s
 * `cachedData`) takes scripts, not ES modules.
 */
const freshSearchApart: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "fresh-search-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/sessions\/fresh-search$/ }, () => ({
      path: "fresh-search",
      namespace: "fresh-search-apart",
    }));
    build.onLoad({ filter: /.*/, namespace: "fresh-search-apart" }, () => ({
      contents: `import { loadCompiled } from "./code-cache";
export async function searchIfFresh(args, io) {
  const bundle = loadCompiled(new URL("./fresh-search.cjs", import.meta.url));
  try {
    return await bundle.exports.searchIfFresh(args, io);
  } finally {
    bundle.saveCache();
  }
}`,
      loader: "js",
      resolveDir: path.join(__dirname, "src/cli"),
    }));
  },
};

/**
 * `tapedeck acp` is bundled on its own (`acpBundle` below) as `acp.cjs`, which both the executable
 * (`src/launcher.ts`) and the ES module CLI run through a V8 code cache (`src/cli/acp-bundle.ts`):
 * split, the agent's start made Node's ES module loader resolve, read and compile ≈ 17 chunks
 * (≈ 670 KB) before it could answer `initialize`, and on Node 20 every spawn compiled them again.
 * In the ES module CLI, `./acp-command` (imported by `main.ts`) is a loader of that bundle.
 */
const acpApart: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "acp-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/acp-command$/ }, (args) =>
      /[\\/]cli[\\/]main\.ts$/.test(args.importer)
        ? { path: "acp-command", namespace: "acp-apart" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "acp-apart" }, () => ({
      contents: 'export { runAcpBundle as acpCommand } from "./acp-bundle";',
      loader: "js",
      resolveDir: path.join(__dirname, "src/cli"),
    }));
  },
};

/**
 * In `fresh-search.cjs` and `acp.cjs` better-sqlite3's JavaScript (≈ 12 files) is bundled instead of loaded by
 * Node's CommonJS loader (a resolution, a `package.json` read, a read and a compile per file:
 * ≈ 3 ms idle, 10 ms under load, of a 40 ms command), and its native addon is loaded by its own
 * path, so the `bindings` package's search for it is skipped (`nativeBinding`). The addon comes
 * from the installed `better-sqlite3` (a dependency of this package), the JavaScript from the
 * same version at build time.
 */
const sqliteBundled: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "better-sqlite3-bundled",
  setup(build) {
    build.onResolve({ filter: /^better-sqlite3$/ }, (args) =>
      args.namespace === "sqlite-bundled" ? undefined : { path: "db", namespace: "sqlite-bundled" },
    );
    // Never called: every database is opened with `nativeBinding`.
    build.onResolve({ filter: /^bindings$/ }, () => ({ path: "bindings", external: true }));
    build.onLoad({ filter: /.*/, namespace: "sqlite-bundled" }, () => ({
      contents: `import Database from "better-sqlite3/lib/index.js";
const nodeRequire = require;
let addon;
export default class BundledDatabase extends Database {
  constructor(filename, options) {
    addon ??= nodeRequire(nodeRequire.resolve("better-sqlite3/build/Release/better_sqlite3.node"));
    super(filename, { ...options, nativeBinding: addon });
  }
}`,
      loader: "js",
      resolveDir: __dirname,
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
  esbuildPlugins: [zodEnglishOnly, sqliteByRequire, freshSearchApart, acpApart, acpSchemasOnUse],
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

/** A CommonJS bundle of its own, run through the V8 code cache (`fresh-search.cjs`, `acp.cjs`). */
const cjsApart: Options = {
  ...cli,
  format: ["cjs"],
  outExtension: () => ({ js: ".cjs" }),
  splitting: false,
  // `import.meta.url` (the store's `createRequire`) from `__filename`.
  shims: true,
  banner: {},
};

/** `fresh-search.cjs`: `tapedeck sessions search` on a fresh index (see `freshSearchApart`). */
const freshSearch: Options = {
  ...cjsApart,
  entry: { "fresh-search": "src/cli/sessions/fresh-search.ts" },
  esbuildPlugins: [zodEnglishOnly, sqliteBundled],
  esbuildOptions(options, context) {
    cli.esbuildOptions?.(options, context);
    // session-query's `#index-writer` under this condition is a stand-in that throws (its
    // package.json `imports`): this bundle answers only a fresh index and leaves out the writer
    // and the log's zod schemas; a sync with work hands the search to the full command.
    options.conditions = ["tapedeck-index-read-only", "module"];
  },
};

/**
 * `tapedeck.cjs`: the executable (`src/launcher.ts`), a small CommonJS script in front of the ES
 * module CLI, so that a search on a fresh index never starts Node's ES module loader.
 */
const launcher: Options = {
  ...cli,
  entry: { tapedeck: "src/launcher.ts" },
  format: ["cjs"],
  outExtension: () => ({ js: ".cjs" }),
  splitting: false,
  // `import.meta.url` (the code cache's `createRequire`, the bundles' URLs) from `__filename`.
  shims: true,
  esbuildPlugins: [],
  banner: { js: "#!/usr/bin/env node" },
};

/**
 * `acp.cjs`: `tapedeck acp` (see `acpApart`), everything the agent may load in one script (≈ 1.5
 * MB: the model clients, the MCP client and the team index's `pg` too); what it loads later
 * (`import()`) is only evaluated then, and V8 compiles only the functions that run.
 */
const acpBundle: Options = {
  ...cjsApart,
  entry: { acp: "src/cli/acp-command.ts" },
  esbuildPlugins: [zodEnglishOnly, sqliteBundled, acpSchemasOnUse],
};

export default defineConfig([cli, freshSearch, acpBundle, launcher]);
