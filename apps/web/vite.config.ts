import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin, type Rolldown } from "vite";

type OutputChunk = Rolldown.OutputChunk;

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Chunks the page evaluates soon but not at once: the app itself (`client/main.tsx`, imported by
 * `client/boot.ts` after the server's first view has been painted) and the Markdown renderer
 * (after the first rows). The HTML names them and every chunk they import as `modulepreload`, so
 * the browser fetches and compiles them all while the page starts (no request waits for the one
 * before it), and the `import()` later only evaluates them.
 */
const PRELOADED_CHUNKS = ["client/main.tsx", "render/markdown.tsx"];

function preloadChunks(): Plugin {
  return {
    name: "tapedeck-preload-chunks",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, context) {
        const chunks = new Map<string, OutputChunk>();
        for (const chunk of Object.values(context.bundle ?? {})) {
          if (chunk.type === "chunk") chunks.set(chunk.fileName, chunk);
        }
        const preloaded = new Set<string>();
        const add = (chunk: OutputChunk) => {
          if (preloaded.has(chunk.fileName)) return;
          preloaded.add(chunk.fileName);
          for (const name of chunk.imports) {
            const imported = chunks.get(name);
            if (imported !== undefined) add(imported);
          }
        };
        for (const chunk of chunks.values()) {
          if (PRELOADED_CHUNKS.some((entry) => chunk.facadeModuleId?.endsWith(`/src/${entry}`))) {
            add(chunk);
          }
        }
        // What the HTML already names (the entry and its imports) is not named twice.
        return [...preloaded]
          .filter((fileName) => !html.includes(`/${fileName}"`))
          .map((fileName) => ({
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: true, href: `/${fileName}` },
            injectTo: "head" as const,
          }));
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
