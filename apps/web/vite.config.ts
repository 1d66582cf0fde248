import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = path.dirname(fileURLToPath(import.meta.url));

// The client lives in src/client; the server serves dist/client (see src/server/main.ts).
export default defineConfig({
  root: path.join(here, "src/client"),
  base: "/",
  build: {
    outDir: path.join(here, "dist/client"),
    emptyOutDir: true,
    // Only the browser-safe parts of the workspace packages are imported (types and pure code).
    target: "es2022",
    sourcemap: true,
  },
  server: { proxy: { "/api": "http://127.0.0.1:4848" } },
});
