import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Chunks the first view does not wait for but soon uses (the Markdown renderer): the HTML names
 * them as `modulepreload`, so the browser fetches and compiles them while the app starts, and the
 * page's `import()` after its first rows only evaluates them.
 */
const PRELOADED_CHUNKS = ["client/main.tsx", "render/markdown.tsx"];

function preloadChunks(): Plugin {
  return {
    name: "tapedeck-preload-chunks",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, context) {
        const bundle = context.bundle ?? {};
        return Object.values(bundle).flatMap((chunk) =>
          chunk.type === "chunk" &&
          PRELOADED_CHUNKS.some((entry) => chunk.facadeModuleId?.endsWith(`/src/${entry}`))
            ? [
                {
                  tag: "link",
                  attrs: { rel: "modulepreload", href: `/${chunk.fileName}` },
                  injectTo: "head" as const,
                },
              ]
            : [],
        );
      },
    },
  };
}

// The client lives in src/client; the server serves dist/client (see src/server/main.ts).
export default defineConfig({
  root: path.join(here, "src/client"),
  base: "/",
  plugins: [preloadChunks()],
  build: {
    outDir: path.join(here, "dist/client"),
    emptyOutDir: true,
    // Only the browser-safe parts of the workspace packages are imported (types and pure code).
    target: "es2022",
    sourcemap: true,
  },
  server: { proxy: { "/api": "http://127.0.0.1:4848" } },
});
