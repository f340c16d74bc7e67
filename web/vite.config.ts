// Vite builds the app into dist/ (the gateway serves it from STATIC_DIR) and, for `npm run dev`,
// proxies the gateway's routes so cookies and the socket stay same-origin with the dev server.
import { defineConfig } from "vitest/config";

const gateway = process.env.TAVOLO_GATEWAY ?? "http://localhost:8080";

export default defineConfig({
  // Plain esbuild JSX: Preact needs no Babel plugin for this app.
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    // Every file is served by the gateway itself; nothing loads from elsewhere at run time.
    assetsInlineLimit: 0,
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      // changeOrigin stays false: the gateway checks the socket's Origin against its own host,
      // and the OIDC callback must come back to the dev server's origin.
      "/api": { target: gateway },
      "/auth": { target: gateway },
      "/ws": { target: gateway, ws: true },
    },
  },
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    environment: "node",
  },
});
