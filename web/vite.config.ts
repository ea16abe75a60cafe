import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Messages are precompiled to ASTs (`npm run i18n:compile`), so the ICU parser is never shipped:
// react-intl gets the parser-less build.
export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@formatjs\/icu-messageformat-parser$/, replacement: '@formatjs/icu-messageformat-parser/lib/no-parser.js' },
    ],
  },
  server: {
    proxy: { '/ciam': 'http://127.0.0.1:8080' },
  },
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
