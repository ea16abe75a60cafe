import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Messages are precompiled to ASTs (`npm run i18n`), so the ICU parser is never shipped:
// react-intl gets the parser-less build.
// Every id is in the compiled catalogues, so the English defaults in the code (the extraction
// source) are dead weight in the browser: production builds drop them.
const DEFAULT_MESSAGE = /\s*defaultMessage:\s*(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`),?/g;
function stripDefaultMessages(): Plugin {
  return {
    name: 'ciam-strip-default-messages',
    apply: 'build',
    transform(code, id) {
      if (!/\/src\/.*\.tsx?$/.test(id) || !code.includes('defaultMessage')) return null;
      return { code: code.replace(DEFAULT_MESSAGE, ''), map: null };
    },
  };
}

export default defineConfig({
  plugins: [react(), stripDefaultMessages()],
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
    manifest: true,
    rolldownOptions: {
      // Modules the entry shares with lazy screens stay in the entry chunk: one request, not five.
      output: { codeSplitting: { groups: [{ name: 'main', tags: ['$initial'] }] } },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
