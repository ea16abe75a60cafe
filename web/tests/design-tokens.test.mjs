// The design tokens (docs/design-tokens.md) are the only place with literal colours: every rule of
// the app's stylesheets uses them (the QR code's white and the print page's black on white aside),
// and every token has a dark value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src') + '/';
const sheets = [
  join(SRC, 'styles.css'),
  ...readdirSync(join(SRC, 'features')).flatMap((f) =>
    readdirSync(join(SRC, 'features', f))
      .filter((n) => n.endsWith('.css'))
      .map((n) => join(SRC, 'features', f, n)),
  ),
];
const COLOUR = /#[0-9a-f]{3,8}\b|rgba?\(|hsla?\(/gi;
const ALLOWED = [/^\.qr \{/, /^\s*\.backup-print, \.backup-print \* \{/];

/** The stylesheet without its token blocks (`:root { ... }` and the dark media block). */
function rules(css) {
  const start = css.indexOf('* { box-sizing');
  return (start >= 0 ? css.slice(start) : css).split('\n');
}

test('design tokens: every rule uses the tokens instead of literal colours', () => {
  const found = sheets.flatMap((file) =>
    rules(readFileSync(file, 'utf8'))
      // A token with a fallback (`var(--color-accent, #0b57d0)`) uses the token.
      .filter((line) => !line.trim().startsWith('--') && !line.trim().startsWith('/*') && line.replace(/var\([^()]*\)/g, '').match(COLOUR))
      .filter((line) => !ALLOWED.some((a) => a.test(line)))
      .map((line) => `${file.slice(SRC.length)}: ${line.trim()}`),
  );
  assert.deepEqual(found, []);
});

test('design tokens: the contract names, each with a dark value', () => {
  const css = readFileSync(join(SRC, 'styles.css'), 'utf8');
  const dark = css.slice(css.indexOf('@media (prefers-color-scheme: dark)'), css.indexOf('* { box-sizing'));
  const colours = ['fg', 'muted', 'bg', 'surface', 'line', 'accent', 'on-accent', 'danger', 'on-danger', 'danger-bg', 'success'];
  for (const c of colours) assert.ok(dark.includes(`--color-${c}:`), c);
  for (const n of [1, 2, 3, 4, 5, 6]) assert.ok(css.includes(`--space-${n}:`));
  for (const t of ['sm', 'md', 'lg', 'xl']) assert.ok(css.includes(`--text-${t}:`));
  for (const r of ['sm', 'md']) assert.ok(css.includes(`--radius-${r}:`));
  assert.ok(css.includes('color-scheme: light dark'));
  assert.match(css, /"Noto Sans CJK SC", "Source Han Sans SC", sans-serif/);
});
