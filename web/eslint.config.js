// ESLint for the web app (flat config): `npm run lint` (in `npm test`) fails on any problem,
// warnings included (--max-warnings=0). TypeScript through typescript-eslint, the rules of hooks,
// and the import boundaries of DESIGN's layout:
//   - a feature (src/features/<name>/) never imports another feature: what two features share
//     lives in lib/ (no React), components/ (React) or config/;
//   - lib/, components/, config/, i18n/ and testing/ never import a feature (only app/ does:
//     the router).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const FEATURES = ['admin', 'agreement', 'auth', 'logout', 'personal'];

const featureImports = (name) => [`../${name}`, `../${name}/*`, `**/features/${name}`, `**/features/${name}/*`];

const boundaries = [
  ...FEATURES.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: FEATURES.filter((other) => other !== feature).flatMap(featureImports),
              message: 'A feature does not import another feature: move what they share to lib/, components/ or config/.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/{lib,components,config,i18n,testing}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/features/*', '**/features/**'], message: 'Shared code does not import a feature (only app/ does).' }] },
      ],
    },
  },
];

/**
 * One typed web client (issue 31): every API call goes through lib/api.ts's `call`, named by its
 * route key ("METHOD /path", typed by the generated operations); the API's prefix is spelled in
 * lib/api-url.ts alone (tests/api-client.test.mjs checks the same over every file).
 */
const PREFIX = 'The API prefix belongs to lib/api-url.ts: call an operation with `call` (lib/api.ts), or make its address with `url`.';
const client = [
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/lib/api-url.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'Literal[value=/\\/ciam\\/v1/]', message: PREFIX },
        { selector: 'TemplateElement[value.raw=/\\/ciam\\/v1/]', message: PREFIX },
      ],
    },
  },
  {
    // A fetch of its own only where `call` cannot serve (each at an address of `url`): the boot,
    // before the client; the error report (keepalive, no Authorization); the staff sign-in's
    // probe (a redirect, not JSON).
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}', 'src/testing/**', 'src/lib/api.ts', 'src/main.tsx', 'src/lib/error-report.ts', 'src/features/auth/staff-signin.tsx'],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: 'API calls go through `call` (lib/api.ts).' }],
    },
  },
];

export default defineConfig(
  { ignores: ['dist/', 'src/i18n/compiled/'] },
  js.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommended],
    languageOptions: { globals: globals.browser },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Build scripts and the node:test suites (budget, end to end).
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    // End-to-end tests hand functions to the browser (page.evaluate): both sets of globals.
    files: ['tests/e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  ...boundaries,
  ...client,
);
