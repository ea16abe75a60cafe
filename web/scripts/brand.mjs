// The operator's brand (docs/web-experience.md "The brand", docs/operations.md "The brand"):
// product name in both languages, logo (light and dark, or one), favicon and accent colour, read
// from a brand folder's brand.json and written into a built web app, so that the brand is there at
// first paint without a request the page waits for beyond one small same-origin stylesheet:
//   - dist/brand/: the logo(s), the favicon and brand.css (the accent's custom properties and the
//     logo beside the header's name, both themes, the embedded frame's theme=light|dark included:
//     the logo is decorative next to the name, so a CSS image, which costs the app no JavaScript);
//   - dist/brand/brand.js: the name where the app says "Ciam" (the header, running text) and after
//     every page title ("Sign in · Acme ID"), a module script after the app's (deferred: it
//     blocks nothing), so the app's own JavaScript, and the sign-in's budget, do not change;
//   - dist/index.html (and its .br/.gz copies): the name in <title> and in the painted header,
//     <link rel=icon>, <link rel=stylesheet href=/brand/brand.css>, <script src=/brand/brand.js>,
//     and the two meta tags with the name in each language (`ciam-brand-en-US`,
//     `ciam-brand-zh-CN`) that brand.js reads.
// An accent that cannot keep 7:1 text contrast (docs/design-tokens.md) in both themes is refused
// with its reason; the shades around it (the dark theme's accent when not given, the quiet fills,
// the text on the accent) are derived so that they do.
//
//   node web/scripts/brand.mjs --brand DIR --dist web/dist [--out DIR]
// Without --out the dist folder is branded in place; with it, a branded copy is written there.
// Exit 1 with the reason when brand.json or its accent is refused. Without a brand nothing runs:
// the built app is today's look (name "Ciam", the default accent, no favicon).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';

/** The theme colours an accent is read against (web/src/styles.css, docs/design-tokens.md). */
export const THEMES = {
  light: { surface: '#ffffff', bg: '#f6f7f9', fg: '#1d2330', muted: '#434b5a' },
  dark: { surface: '#1b1f26', bg: '#111418', fg: '#e6e8ec', muted: '#c3c9d3' },
};
/** Text contrast (WCAG 2.x AAA, axe's color-contrast-enhanced). */
export const TEXT_RATIO = 7;

export class BrandError extends Error {}

const HEX = /^#[0-9a-f]{6}$/i;
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const hex = (c) => `#${c.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
const channel = (v) => {
  const s = v / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
const luminance = (h) => {
  const [r, g, b] = rgb(h).map(channel);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The WCAG contrast ratio of two #rrggbb colours. */
export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/** `a` with a share `t` (0..1) of `b` mixed in. */
export function mix(a, b, t) {
  const [p, q] = [rgb(a), rgb(b)];
  return hex(p.map((v, i) => v + (q[i] - v) * t));
}

const fmt = (r) => `${(Math.floor(r * 100) / 100).toFixed(2)}:1`;

/** The nearest shade of `accent` towards `to` (black or white) that reads at 7:1 on `against`. */
function nearestPassing(accent, to, against) {
  for (let t = 0; t <= 1.0001; t += 0.02) {
    const c = mix(accent, to, t);
    if (against.every((b) => contrast(c, b) >= TEXT_RATIO)) return c;
  }
  return to;
}

/** The quiet fill of a theme (the current item, notices, badges): as much of the accent as keeps every text on it at 7:1. */
function quietFill(accent, theme, share) {
  for (let t = share; t >= 0; t -= 0.01) {
    const fill = mix(theme.surface, accent, t);
    if ([accent, theme.fg, theme.muted].every((c) => contrast(c, fill) >= TEXT_RATIO)) return fill;
  }
  return theme.surface;
}

/**
 * The accent's shades for both themes, or a BrandError saying why the accent is refused: it is
 * text (links, the current item) on the page and on cards, so it must read at 7:1 on both; the
 * text on it is the page's background colour (then at least as far from it). `accentDark`, when
 * not given, is the light accent lightened until it reads at 7:1 on the dark theme.
 */
export function brandColours(accent, accentDark) {
  if (typeof accent !== 'string' || !HEX.test(accent)) throw new BrandError(`accent ${JSON.stringify(accent)}: a colour #rrggbb is needed`);
  if (accentDark !== undefined && (typeof accentDark !== 'string' || !HEX.test(accentDark))) {
    throw new BrandError(`accentDark ${JSON.stringify(accentDark)}: a colour #rrggbb is needed`);
  }
  const check = (name, c, theme, to) => {
    const t = THEMES[theme];
    const worst = [t.surface, t.bg].map((b) => [b, contrast(c, b)]).sort((p, q) => p[1] - q[1])[0];
    if (worst[1] < TEXT_RATIO) {
      throw new BrandError(
        `${name} ${c} reads at ${fmt(worst[1])} on the ${theme} theme's background ${worst[0]}; text needs ${TEXT_RATIO}:1 ` +
          `(the nearest shade that does: ${nearestPassing(c, to, [t.surface, t.bg])})`,
      );
    }
  };
  const light = accent.toLowerCase();
  check('accent', light, 'light', '#000000');
  const dark = (accentDark ?? nearestPassing(light, '#ffffff', [THEMES.dark.surface, THEMES.dark.bg])).toLowerCase();
  check('accentDark', dark, 'dark', '#ffffff');
  return {
    light: { accent: light, onAccent: THEMES.light.surface, accentBg: quietFill(light, THEMES.light, 0.08) },
    dark: { accent: dark, onAccent: THEMES.dark.bg, accentBg: quietFill(dark, THEMES.dark, 0.14) },
  };
}

const props = (c) => (c ? `--color-accent: ${c.accent}; --color-on-accent: ${c.onAccent}; --color-accent-bg: ${c.accentBg}; ` : '');
const logoProp = (src) => (src ? `--brand-logo: url("${src.replace(/["\\\n]/g, '')}"); ` : '');

/**
 * brand.css: the accent's custom properties over the defaults of styles.css (same selectors, loaded
 * after it), and the logo: `--brand-logo` (the dark theme's when given), drawn before the header's
 * name (`.brand::before`) at `width` x 28 px.
 */
export function brandCss(colours, { logo, logoDark, width = 28 } = {}) {
  const light = props(colours?.light) + logoProp(logo);
  const dark = props(colours?.dark) + logoProp(logoDark);
  return [
    "/* The operator's brand (web/scripts/brand.mjs) over styles.css's defaults. */",
    light && `:root { ${light}}`,
    dark && `@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) { ${dark}} }`,
    dark && `:root[data-theme="dark"] { ${dark}}`,
    // Decorative beside the name it illustrates: no text alternative, nothing for a reader to say.
    logo && '.brand { display: inline-flex; align-items: center; gap: var(--space-2); }',
    logo && `.brand::before { content: ""; flex: none; width: ${width}px; height: 28px; background: var(--brand-logo) no-repeat center / contain; }`,
  ]
    .filter(Boolean)
    .concat('')
    .join('\n');
}

/** The logo's width at 28 px high, from an SVG's viewBox (or width and height) or a PNG's header; else square. */
export function logoWidth(file) {
  if (!file) return 28;
  const bytes = readFileSync(file);
  let w = 0;
  let h = 0;
  if (file.toLowerCase().endsWith('.png') && bytes.length > 24) {
    w = bytes.readUInt32BE(16);
    h = bytes.readUInt32BE(20);
  } else if (file.toLowerCase().endsWith('.svg')) {
    const head = bytes.toString('utf8', 0, 2000);
    const box = /viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(head);
    const wh = [/\swidth="([\d.]+)/.exec(head), /\sheight="([\d.]+)/.exec(head)];
    [w, h] = box ? [Number(box[1]), Number(box[2])] : wh[0] && wh[1] ? [Number(wh[0][1]), Number(wh[1][1])] : [0, 0];
  }
  return w > 0 && h > 0 ? Math.min(160, Math.round((28 * w) / h)) : 28;
}

const IMAGE = new Set(['.svg', '.png', '.webp', '.ico']);
const MAX_BYTES = 200_000;
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An image of the brand: an https URL as it is (the CSP's img-src takes https:), else a file of the folder, served from /brand/. */
function image(dir, key, value, files) {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value) throw new BrandError(`${key}: a file name in the brand folder or an https URL`);
  if (value.startsWith('https://')) return value;
  if (/[\\/]/.test(value)) throw new BrandError(`${key} ${value}: a file name of the brand folder itself (no path)`);
  const ext = extname(value).toLowerCase();
  if (!IMAGE.has(ext)) throw new BrandError(`${key} ${value}: an .svg, .png, .webp or .ico file`);
  const from = join(dir, value);
  if (!existsSync(from) || !statSync(from).isFile()) throw new BrandError(`${key} ${value}: no such file in ${dir}`);
  if (statSync(from).size > MAX_BYTES) throw new BrandError(`${key} ${value}: larger than ${MAX_BYTES} bytes`);
  const name = `${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${ext}`;
  files.push([from, name]);
  return `/brand/${name}`;
}

/** brand.json, checked: what the pages show and the files to copy. */
export function readBrand(dir) {
  const file = join(dir, 'brand.json');
  if (!existsSync(file)) throw new BrandError(`${file}: not found`);
  let raw;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new BrandError(`${file}: ${e.message}`);
  }
  const names = raw.name ?? {};
  const en = typeof names === 'string' ? names : names['en-US'];
  const zh = typeof names === 'string' ? names : (names['zh-CN'] ?? en);
  for (const [k, v] of [['name.en-US', en], ['name.zh-CN', zh]]) {
    if (typeof v !== 'string' || !v.trim() || v.length > 40) throw new BrandError(`${k}: the product name, 1 to 40 characters`);
  }
  const files = [];
  const logo = image(dir, 'logo', raw.logo, files);
  const width = Number.isInteger(raw.logoWidth) && raw.logoWidth > 0 ? Math.min(160, raw.logoWidth) : logoWidth(files.find(([, n]) => n.startsWith('logo.'))?.[0]);
  return {
    name: { 'en-US': en.trim(), 'zh-CN': zh.trim() },
    colours: raw.accent === undefined ? null : brandColours(raw.accent, raw.accentDark),
    logo,
    logoDark: image(dir, 'logoDark', raw.logoDark, files) ?? logo,
    logoWidth: width,
    favicon: image(dir, 'favicon', raw.favicon, files),
    files,
  };
}

/** The painted header's brand (as web/src/app/shell.tsx draws it; the logo is brand.css's). */
export function headerHtml(brand, lang = 'zh-CN') {
  return `<span class="brand">${esc(brand.name[lang])}</span>`;
}

/**
 * brand.js: the product's name in the page's language (`<html lang>`, set by the app at start; a
 * language switch reloads the page) wherever the app says "Ciam": the header, the page's title
 * (with the name after every title: "Sign in · Acme ID"), running text ("would like to use your
 * Ciam account") and the alt, title and aria-label attributes, code and preformatted text aside.
 * What the app draws or sets is seen by a MutationObserver (its callback runs before the next
 * paint, so "Ciam" is never seen) and only the changed nodes are looked at. The app itself knows
 * nothing of the brand: its JavaScript (and the sign-in's budget) is the same with or without one.
 */
export const BRAND_JS = `// The operator's brand (web/scripts/brand.mjs): the product's name where the app says "Ciam", and after every title.
const names = Object.fromEntries([...document.querySelectorAll('meta[name^="ciam-brand-"]')].map((m) => [m.name.slice(11), m.content]));
const WORD = /\\bCiam\\b/g;
const SKIP = 'code, pre, script, style, textarea, kbd, samp';
const ATTRS = ['alt', 'title', 'aria-label'];
const name = () => names[document.documentElement.lang] ?? Object.values(names)[0];
const text = (node) => {
  if (node.nodeValue?.includes('Ciam') && !node.parentElement?.closest(SKIP)) node.nodeValue = node.nodeValue.replace(WORD, name());
};
const element = (el) => {
  if (el.closest(SKIP)) return;
  for (const a of ATTRS) if (el.getAttribute(a)?.includes('Ciam')) el.setAttribute(a, el.getAttribute(a).replace(WORD, name()));
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.nodeType === 3) text(n);
    else for (const a of ATTRS) if (n.getAttribute(a)?.includes('Ciam') && !n.closest(SKIP)) n.setAttribute(a, n.getAttribute(a).replace(WORD, name()));
  }
};
const title = () => {
  const n = name();
  const all = Object.values(names);
  let t = document.title;
  for (const o of all) if (t.endsWith(\` · \${o}\`)) t = t.slice(0, -o.length - 3);
  t = t.replace(WORD, n);
  const want = !t || all.includes(t) ? n : t.includes(n) ? t : \`\${t} · \${n}\`;
  if (document.title !== want) document.title = want;
};
new MutationObserver((records) => {
  for (const r of records) {
    if (r.type === 'characterData') text(r.target);
    else if (r.type === 'attributes') element(r.target);
    else for (const n of r.addedNodes) n.nodeType === 3 ? text(n) : n.nodeType === 1 && element(n);
  }
  title();
}).observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS });
// The header painted before the app ran names the product in index.html's language.
for (const el of document.querySelectorAll('header .brand')) if (Object.values(names).includes(el.textContent)) el.textContent = name();
element(document.body);
title();
`;

/** Whether brand.css has anything to say (an accent or a logo): else no stylesheet, no request. */
const styled = (brand) => !!(brand.colours || brand.logo);

/** index.html with the brand: title, painted header, icon, stylesheet and the tags the app reads. */
export function brandIndex(html, brand) {
  const lang = /<html[^>]*\blang="en-US"/.test(html) ? 'en-US' : 'zh-CN';
  const tags = [
    `<meta name="ciam-brand-en-US" content="${esc(brand.name['en-US'])}" />`,
    `<meta name="ciam-brand-zh-CN" content="${esc(brand.name['zh-CN'])}" />`,
    brand.favicon && `<link rel="icon" href="${esc(brand.favicon)}" />`,
    styled(brand) && '<link rel="stylesheet" href="/brand/brand.css" />',
    '<script type="module" src="/brand/brand.js"></script>',
  ].filter(Boolean);
  let out = html.replace(/<title>[^<]*<\/title>/, `<title>${esc(brand.name[lang])}</title>`);
  out = out.replace(/(<meta name="description" content=")Ciam\b/, `$1${esc(brand.name[lang])}`);
  out = out.replace(/<span class="brand">[^<]*<\/span>/, headerHtml(brand, lang));
  if (!out.includes('</head>')) throw new BrandError('index.html has no </head>');
  return out.replace('</head>', `  ${tags.join('\n    ')}\n  </head>`);
}

/** Brands `dist` (or a copy of it in `out`): files under brand/, index.html and its compressed copies. */
export function applyBrand(brandDir, dist, out = dist) {
  const brand = readBrand(resolve(brandDir));
  if (resolve(out) !== resolve(dist)) cpSync(dist, out, { recursive: true });
  const index = join(out, 'index.html');
  if (!existsSync(index)) throw new BrandError(`${index}: not found (npm run build first)`);
  const into = join(out, 'brand');
  mkdirSync(into, { recursive: true });
  for (const [from, name] of brand.files) cpSync(from, join(into, name));
  writeFileSync(join(into, 'brand.js'), BRAND_JS);
  if (styled(brand)) writeFileSync(join(into, 'brand.css'), brandCss(brand.colours, { logo: brand.logo, logoDark: brand.logoDark, width: brand.logoWidth }));
  const html = brandIndex(readFileSync(index, 'utf8'), brand);
  writeFileSync(index, html);
  // `ciam serve` sends these when the browser takes them: they must say the same.
  if (existsSync(`${index}.br`)) writeFileSync(`${index}.br`, brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  if (existsSync(`${index}.gz`)) writeFileSync(`${index}.gz`, gzipSync(html, { level: 9 }));
  return brand;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const brandDir = arg('--brand');
  const dist = arg('--dist') ?? 'web/dist';
  if (!brandDir) {
    console.error('usage: node web/scripts/brand.mjs --brand DIR [--dist web/dist] [--out DIR]');
    process.exit(2);
  }
  try {
    const b = applyBrand(brandDir, dist, arg('--out') ?? dist);
    console.log(`brand: ${b.name['en-US']} / ${b.name['zh-CN']}${b.colours ? `, accent ${b.colours.light.accent} (dark ${b.colours.dark.accent})` : ''}`);
  } catch (e) {
    if (!(e instanceof BrandError)) throw e;
    console.error(`brand refused: ${e.message}`);
    process.exit(1);
  }
}
