// The operator's brand (web/scripts/brand.mjs): an accent that cannot keep 7:1 text contrast in
// both themes is refused with its reason; one that can gets shades that keep every text pair of
// docs/design-tokens.md that involves the accent at 7:1; index.html carries the brand at first
// paint (title, header, icon, stylesheet) and only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { applyBrand, brandColours, brandCss, brandIndex, BrandError, contrast, logoWidth, readBrand, THEMES } from '../scripts/brand.mjs';

const pairs = (c, theme) => {
  const t = THEMES[theme];
  return {
    'accent on surface': contrast(c.accent, t.surface),
    'accent on bg': contrast(c.accent, t.bg),
    'on-accent on accent': contrast(c.onAccent, c.accent),
    'accent on accent-bg': contrast(c.accent, c.accentBg),
    'fg on accent-bg': contrast(t.fg, c.accentBg),
    'muted on accent-bg': contrast(t.muted, c.accentBg),
  };
};

test('brand: the contrast ratio is WCAG\'s (the design tokens\' table)', () => {
  assert.equal(contrast('#ffffff', '#000000').toFixed(2), '21.00');
  assert.equal(contrast('#0a45a3', '#ffffff').toFixed(2), '8.78');
  assert.equal(contrast('#a8c7fa', '#1b1f26').toFixed(2), '9.61');
});

test('brand: a configured accent keeps every text pair at 7:1 in both themes, the dark shade derived', () => {
  for (const accent of ['#0a45a3', '#7a1f5c', '#1e4d2b', '#5b2a86']) {
    const c = brandColours(accent);
    for (const theme of ['light', 'dark']) {
      for (const [pair, ratio] of Object.entries(pairs(c[theme], theme))) assert.ok(ratio >= 7, `${accent} ${theme}: ${pair} ${ratio.toFixed(2)}`);
    }
    assert.equal(c.light.accent, accent);
    assert.notEqual(c.dark.accent, accent, 'the dark theme gets a lighter shade');
  }
  assert.equal(brandColours('#7a1f5c', '#f4c2e4').dark.accent, '#f4c2e4', 'a given dark shade is kept');
});

test('brand: an accent that cannot keep 7:1 is refused, saying why and what would pass', () => {
  // Orange links on white: 2.9:1.
  assert.throws(() => brandColours('#f97316'), (e) => {
    assert.ok(e instanceof BrandError);
    assert.match(e.message, /^accent #f97316 reads at 2\.\d\d:1 on the light theme's background #f6f7f9; text needs 7:1 \(the nearest shade that does: #[0-9a-f]{6}\)$/);
    const better = /does: (#[0-9a-f]{6})/.exec(e.message)[1];
    assert.doesNotThrow(() => brandColours(better), 'the suggested shade passes');
    return true;
  });
  assert.throws(() => brandColours('#0a45a3', '#3b4a66'), (e) => e instanceof BrandError && /^accentDark #3b4a66 reads at \d\.\d\d:1 on the dark theme's background #1b1f26/.test(e.message));
  assert.throws(() => brandColours('blue'), /accent "blue": a colour #rrggbb is needed/);
});

test('brand: brand.css sets the accent for both themes and the frame\'s theme=dark', () => {
  const css = brandCss(brandColours('#7a1f5c'));
  assert.match(css, /^:root \{ --color-accent: #7a1f5c; --color-on-accent: #ffffff; --color-accent-bg: #[0-9a-f]{6}; \}$/m);
  assert.match(css, /@media \(prefers-color-scheme: dark\) \{ :root:not\(\[data-theme="light"\]\) \{ --color-accent: #[0-9a-f]{6};/);
  assert.match(css, /^:root\[data-theme="dark"\] \{ --color-accent: /m);
});

test('brand: index.html names the brand at first paint; a built dist is branded with its compressed copies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ciam-brand-'));
  try {
    const src = join(dir, 'brand');
    const dist = join(dir, 'dist');
    mkdirSync(src);
    mkdirSync(dist);
    writeFileSync(join(src, 'brand.json'), JSON.stringify({ name: { 'en-US': 'Acme ID', 'zh-CN': '爱克美账号' }, accent: '#7a1f5c', logo: 'logo.svg', favicon: 'icon.svg' }));
    writeFileSync(join(src, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="28" height="28"/>');
    writeFileSync(join(src, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>');
    const built = '<!doctype html><html lang="zh-CN"><head><title>Ciam</title></head><body><div id="root"><header class="top"><span class="brand">Ciam</span></header></div></body></html>';
    writeFileSync(join(dist, 'index.html'), built);
    writeFileSync(join(dist, 'index.html.br'), 'stale');
    applyBrand(src, dist);
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    assert.match(html, /<title>爱克美账号<\/title>/);
    assert.match(html, /<header class="top"><span class="brand">爱克美账号<\/span><\/header>/);
    assert.match(html, /<link rel="icon" href="\/brand\/favicon.svg" \/>/);
    assert.match(html, /<link rel="stylesheet" href="\/brand\/brand.css" \/>\n\s*<script type="module" src="\/brand\/brand.js"><\/script>\n\s*<\/head>/);
    assert.match(html, /<meta name="ciam-brand-en-US" content="Acme ID" \/>\n\s*<meta name="ciam-brand-zh-CN" content="爱克美账号" \/>/);
    // The logo: brand.css draws it before the header's name, as wide as the SVG says at 28 px high.
    const css = readFileSync(join(dist, 'brand', 'brand.css'), 'utf8');
    assert.match(css, /--brand-logo: url\("\/brand\/logo.svg"\);/);
    assert.match(css, /\.brand::before \{ content: ""; flex: none; width: 28px; height: 28px; background: var\(--brand-logo\)/);
    assert.equal(brotliDecompressSync(readFileSync(join(dist, 'index.html.br'))).toString(), html, 'the .br copy says the same');
    for (const f of ['brand.css', 'brand.js', 'logo.svg', 'favicon.svg']) assert.ok(existsSync(join(dist, 'brand', f)), f);
    // No accent and no logo: no stylesheet (no request), the default colours.
    assert.doesNotMatch(brandIndex(built, { ...readBrand(src), colours: null, logo: undefined }), /stylesheet/);
    // A refused accent, or a missing file, stops the deploy before anything is written.
    writeFileSync(join(src, 'brand.json'), JSON.stringify({ name: 'Acme', accent: '#f97316' }));
    assert.throws(() => readBrand(src), BrandError);
    writeFileSync(join(src, 'brand.json'), JSON.stringify({ name: 'Acme', logo: 'missing.svg' }));
    assert.throws(() => readBrand(src), /logo missing.svg: no such file/);
    writeFileSync(join(src, 'brand.json'), JSON.stringify({ name: 'Acme', favicon: '../dist/index.html' }));
    assert.throws(() => readBrand(src), /favicon \.\.\/dist\/index\.html: a file name of the brand folder itself/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('brand: a wide logo keeps its proportions at 28 px high (SVG viewBox, PNG header), at most 160 px', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ciam-brand-logo-'));
  try {
    const svg = join(dir, 'wide.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 28"/>');
    assert.equal(logoWidth(svg), 120);
    const png = join(dir, 'x.png');
    const head = Buffer.alloc(32);
    head.writeUInt32BE(400, 16);
    head.writeUInt32BE(50, 20);
    writeFileSync(png, head);
    assert.equal(logoWidth(png), 160, '224 px capped at 160');
    assert.equal(logoWidth(undefined), 28);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
