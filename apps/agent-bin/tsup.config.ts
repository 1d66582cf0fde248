import { defineConfig } from "tsup";

/**
 * Bundles the `tapedeck` binary into one ESM file: Node 20 cannot run the workspace's `.ts`
 * sources, and one file starts faster. `better-sqlite3` is native and stays external.
 */
export default defineConfig({
  entry: { tapedeck: "src/bin.ts" },
  outDir: "dist",
  format: ["esm"],
  outExtension: () => ({ js: ".mjs" }),
  platform: "node",
  target: "node20",
  bundle: true,
  // Everything but the native module is inlined (noExternal wins over external, so exclude it here).
  noExternal: [/^(?!better-sqlite3$|pg-native$)/],
  // `pg-native` is pg's optional libpq binding, never installed: pg only loads it on request.
  external: ["better-sqlite3", "pg-native"],
  // Lazily imported commands (`tapedeck mcp` and the MCP SDK) go to their own chunks, so the
  // other commands neither read nor compile them.
  splitting: true,
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
});
