import { loadEnv, type Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import pkg from '../package.json' with { type: 'json' };

// Build-time settings (docs/api.md, "Build settings of the web app"), from the environment
// (or a web/.env file). The release string comes from the root package.json, whose version a
// cargo test keeps equal to the Cargo workspace's.
const env = loadEnv('build', '.', 'CIAM_');
function flag(name: string, fallback: boolean): boolean {
  const v = (env[name] ?? '').trim().toLowerCase();
  if (v === '') return fallback;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new Error(`${name} must be "on" or "off", not "${v}"`);
}
function website(name: string, fallback: string): string {
  const v = (env[name] ?? '').trim() || fallback;
  if (!/^https?:\/\/[^\s"'<>]+$/.test(v)) throw new Error(`${name} must be an http(s) URL, not "${v}"`);
  return v;
}
const BUILD = {
  __CIAM_VERSION__: `release.${pkg.version}`,
  __CIAM_ERROR_REPORTS__: flag('CIAM_ERROR_REPORTS', true),
  __CIAM_TEST_HOOKS__: flag('CIAM_TEST_HOOKS', false),
  __CIAM_WEBSITE_ZH__: website('CIAM_WEBSITE_ZH', 'https://www.ciam.example/zh-cn/'),
  __CIAM_WEBSITE_EN__: website('CIAM_WEBSITE_EN', 'https://www.ciam.example/en/'),
};

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
  define: Object.fromEntries(Object.entries(BUILD).map(([k, v]) => [k, JSON.stringify(v)])),
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
