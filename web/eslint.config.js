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
);
