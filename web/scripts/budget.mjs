// The size budget: for each route, what a cold browser downloads to show it, gzipped.
//
//   initial JS  = the entry chunk and its static imports
//               + the route's lazy chunk and its static imports
//               + the current locale's messages chunk (main.tsx awaits it before the first render)
//               + the route's own message bundle in that locale, if its screen is wrapped in
//                 <WithMessages bundle="..."> in src/app/router.tsx (loaded with the screen)
//               + any other script index.html loads (the preload script of vite.config.ts, which
//                 adds <link rel="modulepreload"> for the parts above, so they load with the entry)
//   initial CSS = the CSS of every chunk above (and index.html's stylesheet)
//
// Read from dist/.vite/manifest.json (vite `build.manifest: true`). Each file is gzipped on its
// own with zlib at level 9 (what a server's static gzip would send), and a file shared by two
// parts is counted once. KB = 1,000 bytes (as vite prints). The check fails (exit 1) when the
// sign-in route's initial JS exceeds 110 KB gzipped, or any other route's 130 KB, in either locale
// (issue 12: the first screen most people see is held to the tighter budget).
//
// Usage: node scripts/budget.mjs [--dist <dir>] [--json | --markdown] [--limit-kb <n>]
//        [--write <file.md>]  (rewrites the tables between <!-- budget:start --> and <!-- budget:end -->)
//
// With --paint [--runs <n>] [--json] [--fcp-limit-ms <n>] [--lcp-limit-ms <n>], the paint budget instead (scripts/paint.mjs): sign-in's first
// contentful paint <= 2.0 s and largest contentful paint <= 2.5 s, median of n cold loads per
// language (5 by default) in Chromium through `ciam serve` (CIAM_BIN, default target/debug/ciam)
// with a 4x CPU slowdown and a 150 ms RTT / 1.6 Mbps network. Exit 1 when a median is over, 2 when
// the binary, Chromium or the build is missing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const here = new URL('..', import.meta.url).pathname;
const dist = resolve(opt('--dist') ?? join(here, 'dist'));
export const LIMIT_KB = Number(opt('--limit-kb') ?? 110);
export const OTHER_LIMIT_KB = Number(opt('--other-limit-kb') ?? 130);
const GZIP_LEVEL = 9;

/** The routes of spec §2 and the lazy chunk that shows each. */
export const ROUTES = [
  ['/{lang}/passport/signin', 'src/features/auth/signin.tsx'],
  ['/{lang}/passport/register', 'src/features/auth/register.tsx'],
  ['/{lang}/passport/authorize', 'src/features/auth/authorize.tsx'],
  ['/{lang}/find/password', 'src/features/auth/find-password.tsx'],
  ['/{lang}/embedded/signin', 'src/features/auth/embedded-signin.tsx'],
  ['/{lang}/personal/info', 'src/features/personal/info.tsx'],
  ['/{lang}/personal/secure', 'src/features/personal/secure.tsx'],
  ['/{lang}/agreement/{privacy,protocols,manual}', 'src/features/agreement/agreement.tsx'],
  ['/{lang}/logout', 'src/features/logout/logout.tsx'],
  ['/signout', 'src/features/logout/signout.tsx'],
];
/**
 * Lazy chunks a screen loads as soon as it is drawn, without any act of the user: counted with
 * the screen (tests/e2e/budget-model.test.mjs checks what a cold browser loads).
 */
const LOADED_AT_ONCE = {
  // A new-password field shows the password checklist (components/field.tsx).
  'src/features/auth/register.tsx': ['src/components/password-checklist.tsx'],
  'src/features/auth/find-password.tsx': ['src/components/password-checklist.tsx'],
  'src/features/personal/secure.tsx': ['src/components/password-checklist.tsx'],
};
const LOCALES = { 'zh-CN': 'src/i18n/compiled/zh-CN.json', 'en-US': 'src/i18n/compiled/en-US.json' };

/** Which message bundle each lazy screen loads, read from the router: src -> bundle. */
function screenBundles() {
  const router = readFileSync(join(here, 'src/app/router.tsx'), 'utf8');
  const srcOf = {};
  for (const m of router.matchAll(/const (\w+) = screen\(\s*'[^']*',\s*\(\) => import\('\.\.\/([^']+)'\)/g)) {
    srcOf[m[1]] = `src/${m[2]}.tsx`;
  }
  const out = {};
  for (const m of router.matchAll(/<WithMessages bundle="(\w+)">\s*<(\w+)\s*\/>/g)) {
    if (srcOf[m[2]]) out[srcOf[m[2]]] = m[1];
  }
  return out;
}
const BUNDLE_OF = screenBundles();

const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entryKey) throw new Error('budget: no entry in the manifest');

/** Scripts of index.html other than the entry (not in the manifest); none when there is no index.html. */
function htmlScripts() {
  let html;
  try {
    html = readFileSync(join(dist, 'index.html'), 'utf8');
  } catch {
    return [];
  }
  const entryFile = manifest[entryKey].file;
  return [...html.matchAll(/<script\b[^>]*\bsrc="\/([^"]+\.js)"/g)].map((m) => m[1]).filter((f) => f !== entryFile);
}
const HTML_SCRIPTS = htmlScripts();

const gzCache = new Map();
function gz(file) {
  if (!gzCache.has(file)) {
    const raw = readFileSync(join(dist, file));
    gzCache.set(file, { raw: raw.length, gz: gzipSync(raw, { level: GZIP_LEVEL }).length });
  }
  return gzCache.get(file);
}

/** The chunk `key` and its static imports, transitively: the JS files and the CSS files. */
function closure(key, js = new Set(), css = new Set()) {
  const c = manifest[key];
  if (!c) throw new Error(`budget: ${key} is not in the manifest (is the route still lazy?)`);
  if (js.has(c.file)) return { js, css };
  if (c.file.endsWith('.js')) js.add(c.file);
  for (const f of c.css ?? []) css.add(f);
  for (const i of c.imports ?? []) closure(i, js, css);
  return { js, css };
}

function measure(routeKey, locale) {
  const { js, css } = closure(entryKey);
  for (const f of HTML_SCRIPTS) js.add(f);
  closure(routeKey, js, css);
  for (const k of LOADED_AT_ONCE[routeKey] ?? []) if (manifest[k]) closure(k, js, css);
  closure(LOCALES[locale], js, css);
  const bundle = BUNDLE_OF[routeKey];
  if (bundle) closure(`src/i18n/compiled/${locale}.${bundle}.json`, js, css);
  const sum = (files) => [...files].reduce((a, f) => ({ raw: a.raw + gz(f).raw, gz: a.gz + gz(f).gz }), { raw: 0, gz: 0 });
  return { js: sum(js), css: sum(css), jsFiles: js.size, cssFiles: css.size, files: [...js, ...css].sort() };
}

export function report() {
  const rows = ROUTES.map(([route, key]) => {
    const per = Object.fromEntries(Object.keys(LOCALES).map((l) => [l, measure(key, l)]));
    return { route, chunk: manifest[key].file, bundle: BUNDLE_OF[key] ?? null, ...per };
  });
  const entry = closure(entryKey);
  const entryJs = [...entry.js].reduce((a, f) => a + gz(f).gz, 0);
  const signin = rows[0];
  const signinMax = Math.max(signin['zh-CN'].js.gz, signin['en-US'].js.gz);
  const over = rows
    .slice(1)
    .filter((row) => Math.max(row['zh-CN'].js.gz, row['en-US'].js.gz) > OTHER_LIMIT_KB * 1000)
    .map((row) => row.route);
  return {
    gzipLevel: GZIP_LEVEL,
    kb: 1000,
    limitKb: LIMIT_KB,
    otherLimitKb: OTHER_LIMIT_KB,
    entryJsGz: entryJs,
    rows,
    signinJsGz: signinMax,
    over,
    ok: signinMax <= LIMIT_KB * 1000 && over.length === 0,
  };
}

const kb = (n) => (n / 1000).toFixed(1);

function markdown(r) {
  const out = [
    '| Route | Initial JS, zh-CN (gz) | Initial JS, en-US (gz) | JS raw (en-US) | Initial CSS (gz) | Files (JS + CSS) | Message bundle |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of r.rows) {
    const z = row['zh-CN'];
    const e = row['en-US'];
    out.push(`| \`${row.route}\` | ${kb(z.js.gz)} KB | ${kb(e.js.gz)} KB | ${kb(e.js.raw)} KB | ${kb(e.css.gz)} KB | ${e.jsFiles} + ${e.cssFiles} | ${row.bundle ?? 'core only'} |`);
  }
  const z = r.rows[0]['zh-CN'];
  out.push('', `Sign-in in zh-CN, file by file (${z.files.length} files):`, '', '| File | Raw | Gzipped |', '|---|---:|---:|');
  for (const f of [...z.files].sort((a, b) => gz(b).gz - gz(a).gz)) out.push(`| \`${f.replace(/-[\w-]{8}\.(js|css)$/, '.$1')}\` | ${kb(gz(f).raw)} KB | ${kb(gz(f).gz)} KB |`);
  return out.join('\n');
}

/** Replaces the text between the budget markers of a Markdown file with the tables. */
function writeInto(file, r) {
  const start = '<!-- budget:start -->';
  const end = '<!-- budget:end -->';
  const doc = readFileSync(file, 'utf8');
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`budget: ${file} has no ${start} ... ${end} section`);
  const body = `${start}\n${markdown(r)}\n\nSign-in initial JS: **${kb(r.signinJsGz)} KB** gzipped (limit ${r.limitKb} KB; every other route ${r.otherLimitKb} KB).\n${end}`;
  writeFileSync(file, doc.slice(0, i) + body + doc.slice(j + end.length));
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain && args.includes('--paint')) {
  const { measurePaint, paintMissing, paintVerdict } = await import('./paint.mjs');
  const missing = paintMissing({ dist });
  if (missing.length) {
    console.error(`budget --paint: missing ${missing.join('; ')}`);
    process.exit(2);
  }
  const json = args.includes('--json');
  const r = await measurePaint({
    dist,
    runs: Number(opt('--runs') ?? 5),
    fcpLimitMs: Number(opt('--fcp-limit-ms') ?? 2000),
    lcpLimitMs: Number(opt('--lcp-limit-ms') ?? 2500),
    log: json ? console.error : console.log,
  });
  if (json) console.log(JSON.stringify(r, null, 2));
  for (const line of paintVerdict(r)) (r.ok && !json ? console.log : console.error)(line);
  process.exit(r.ok ? 0 : 1);
} else if (isMain) {
  const r = report();
  if (opt('--write')) writeInto(resolve(opt('--write')), r);
  if (args.includes('--json')) console.log(JSON.stringify(r, null, 2));
  else if (args.includes('--markdown')) console.log(markdown(r));
  else {
    console.log(`budget: initial download per route (gzip level ${GZIP_LEVEL}, KB = 1,000 bytes), dist ${dist}`);
    const w = Math.max(...r.rows.map((x) => x.route.length));
    console.log(`${'route'.padEnd(w)}  JS zh-CN  JS en-US     CSS`);
    for (const row of r.rows) {
      console.log(
        `${row.route.padEnd(w)}  ${kb(row['zh-CN'].js.gz).padStart(5)} KB  ${kb(row['en-US'].js.gz).padStart(5)} KB  ${kb(row['en-US'].css.gz).padStart(4)} KB`,
      );
    }
  }
  const others = r.over.length ? `; over ${OTHER_LIMIT_KB} KB: ${r.over.join(', ')}` : `; every other route within ${OTHER_LIMIT_KB} KB`;
  const verdict = `budget: sign-in initial JS ${kb(r.signinJsGz)} KB gzipped (limit ${LIMIT_KB} KB)${others}: ${r.ok ? 'ok' : 'OVER BUDGET'}`;
  // With --json/--markdown stdout carries only the report.
  (r.ok && !args.includes('--json') && !args.includes('--markdown') ? console.log : console.error)(verdict);
  process.exit(r.ok ? 0 : 1);
}
