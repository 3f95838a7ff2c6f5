/**
 * Builds the web app into `ui/dist`, which the gateway serves. `npm run ui:dev` serves it with hot reload and
 * forwards the API and the socket to a gateway on GATEWAY_URL (default http://127.0.0.1:3000).
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  plugins: [react()],
  // Plotly's source modules (ui/components/plotly.ts) read Node's `global`.
  define: { global: 'globalThis' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      '/api': gateway,
      '/personalize': gateway,
      '/realtime': gateway,
      '/socket.io': { target: gateway, ws: true },
    },
  },
});
