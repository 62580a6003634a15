// The dashboard's build: web/ → dist/web, served by `kiln serve --ui`. Relative asset URLs, so
// the page works wherever it is mounted; everything is bundled (no CDN, no external fonts).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "./",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
  },
  server: {
    // `npx vite web` during development: the API comes from a `kiln serve` on port 4000.
    proxy: { "/api": "http://127.0.0.1:4000" },
  },
});
