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
// Whom a suspended customer is told to contact (docs/operations.md "Support contact"): plain
// text shown inside a catalogue message (a mail address, a phone number or a web address),
// defaulting to the company website of the same language.
function contact(name: string, fallback: string): string {
  const v = (env[name] ?? '').trim() || fallback;
  if (v.length > 120 || /[{}<>\n]/.test(v)) throw new Error(`${name} must be one line of plain text (at most 120 characters, no {}<>), not "${v}"`);
  return v;
}
const WEBSITE_ZH = website('CIAM_WEBSITE_ZH', 'https://www.ciam.example/zh-cn/');
const WEBSITE_EN = website('CIAM_WEBSITE_EN', 'https://www.ciam.example/en/');
const BUILD = {
  __CIAM_VERSION__: `release.${pkg.version}`,
  __CIAM_ERROR_REPORTS__: flag('CIAM_ERROR_REPORTS', true),
  __CIAM_TEST_HOOKS__: flag('CIAM_TEST_HOOKS', false),
  __CIAM_WEBSITE_ZH__: WEBSITE_ZH,
  __CIAM_WEBSITE_EN__: WEBSITE_EN,
  __CIAM_SUPPORT_ZH__: contact('CIAM_SUPPORT_ZH', WEBSITE_ZH),
  __CIAM_SUPPORT_EN__: contact('CIAM_SUPPORT_EN', WEBSITE_EN),
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

// Modulepreload of the first screen (issue 12 §6). The locale and the route are known only in the
// browser (the `/{lang}/...` path, the stored language, else the browser's), and the CSP forbids
// inline scripts, so the build emits a tiny classic script, `assets/preload-<hash>.js`, loaded
// `async` from index.html's head: it works out the screen and the locale the way main.tsx and
// src/app/router.tsx will, and adds `<link rel="modulepreload">` for that screen's chunk and its
// static imports, the locale's core catalogue and the screen's message bundle. They then download
// in parallel with the entry instead of after it has run. The entry chunk does not grow.
// A screen: its lazy chunk's source and the message bundle it is wrapped in (router.tsx).
// A new-password field loads the password checklist as soon as it is drawn: preloaded with it.
const CHECKLIST = 'src/components/password-checklist.tsx';
const SCREENS: Record<string, [src: string | string[], bundle?: 'personal' | 'docs']> = {
  signin: ['src/features/auth/signin.tsx'],
  register: [['src/features/auth/register.tsx', CHECKLIST]],
  authorize: ['src/features/auth/authorize.tsx'],
  find: [['src/features/auth/find-password.tsx', CHECKLIST]],
  embedded: ['src/features/auth/embedded-signin.tsx'],
  info: ['src/features/personal/info.tsx', 'personal'],
  secure: [['src/features/personal/secure.tsx', CHECKLIST], 'personal'],
  agreement: ['src/features/agreement/agreement.tsx', 'docs'],
  logout: ['src/features/logout/logout.tsx', 'personal'],
  signout: ['src/features/logout/signout.tsx', 'personal'],
};
// The screen of a path, as router.tsx routes it (a personal page without a token shows sign-in);
// the locale as src/i18n/locale.ts detects it. Plain ES2017, no dependencies: it runs before the app.
const PRELOAD_RUNTIME = `
var g=function(k){try{return localStorage.getItem(k)}catch(e){return null}};
var L=function(v){var m=/^\\s*(?:(en)|zh)([-_][a-z\\d]+)*\\s*$/i.exec(v||"");return m?(m[1]?"en-US":"zh-CN"):null};
var n=navigator.languages&&navigator.languages.length?navigator.languages[0]:navigator.language;
var s=g("umi_locale"),l=s?L(s)||"zh-CN":n?L(n)||"zh-CN":"zh-CN";
var p=location.pathname.split("/").filter(Boolean),r=p[0]==="signout"&&p.length===1?[]:L(p[0])?p.slice(1):p,a=r[0],b=r[1],k="signin";
if(p[0]==="signout"&&p.length===1)k="signout";
else if(a==="passport"){if(b==="register"||b==="authorize")k=b}
else if(a==="personal"){if(g("ciam_token")!==null)k=b==="secure"?"secure":"info"}
else if(a==="agreement")k="agreement";
else if(a==="find"&&b==="password")k="find";
else if(a==="logout")k="logout";
else if(a==="embedded"&&b==="signin")k="embedded";
var w=S[k],u=[].concat(C[l],w[0],w[1]?B[w[1]][l]:[]);
for(var i=0;i<u.length;i++){var e=document.createElement("link");e.rel="modulepreload";e.crossOrigin="";e.href="/assets/"+F[u[i]];document.head.appendChild(e)}
`;
/** A short content hash for the script's name (FNV-1a, 32 bits, base 36). */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36).padStart(7, '0');
}
type EmitAsset = (file: { type: 'asset'; fileName: string; source: string }) => string;
function preloadFirstScreen(): Plugin {
  let root = '';
  return {
    name: 'ciam-preload-first-screen',
    apply: 'build',
    configResolved(config) {
      root = config.root.replace(/\/?$/, '/');
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle || !ctx.chunk) return;
        const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
        const bySrc = new Map(chunks.filter((c) => c.facadeModuleId?.startsWith(root)).map((c) => [c.facadeModuleId!.slice(root.length), c]));
        const entry = ctx.chunk.fileName;
        const files: string[] = [];
        const index = (f: string) => (files.includes(f) ? files.indexOf(f) : files.push(f) - 1);
        // A chunk and its static imports, without the entry (already loading).
        const closure = (src: string): number[] => {
          const c = bySrc.get(src);
          if (!c) throw new Error(`preload: ${src} is not a chunk of the build (is it still lazy?)`);
          const out = new Set<string>();
          const walk = (file: string) => {
            if (file === entry || out.has(file)) return;
            out.add(file);
            const chunk = chunks.find((x) => x.fileName === file);
            for (const i of chunk?.imports ?? []) walk(i);
          };
          walk(c.fileName);
          return [...out].map(index);
        };
        const locales = ['zh-CN', 'en-US'];
        const C = Object.fromEntries(locales.map((l) => [l, closure(`src/i18n/compiled/${l}.json`)]));
        const B = Object.fromEntries(
          (['personal', 'docs'] as const).map((b) => [b, Object.fromEntries(locales.map((l) => [l, closure(`src/i18n/compiled/${l}.${b}.json`)]))]),
        );
        const all = (src: string | string[]) => [...new Set([src].flat().flatMap(closure))];
        const S = Object.fromEntries(Object.entries(SCREENS).map(([k, [src, b]]) => [k, b ? [all(src), b] : [all(src)]]));
        // Every chunk is under assets/: the script names them without it (shorter on every route).
        const F = files.map((f) => {
          if (!f.startsWith('assets/')) throw new Error(`preload: ${f} is not under assets/`);
          return f.slice('assets/'.length);
        });
        // No comment in the emitted script: every byte of it is in the sign-in's first download.
        const code = `(function(){var F=${JSON.stringify(F)},C=${JSON.stringify(C)},B=${JSON.stringify(B)},S=${JSON.stringify(S)};${PRELOAD_RUNTIME.trim()}})();\n`;
        const fileName = `assets/preload-${fnv(code)}.js`;
        // Vite calls the hook with the build's plugin context (its generateBundle), so it can emit.
        const emit = (this as unknown as { emitFile?: EmitAsset }).emitFile;
        if (typeof emit !== 'function') throw new Error('preload: transformIndexHtml has no emitFile (Vite changed?)');
        emit.call(this, { type: 'asset', fileName, source: code });
        return [{ tag: 'script', attrs: { async: true, src: `/${fileName}` }, injectTo: 'head' }];
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), stripDefaultMessages(), preloadFirstScreen()],
  define: Object.fromEntries(Object.entries(BUILD).map(([k, v]) => [k, JSON.stringify(v)])),
  resolve: {
    alias: [
      { find: /^@formatjs\/icu-messageformat-parser$/, replacement: '@formatjs/icu-messageformat-parser/lib/no-parser.js' },
      // Only `injectIntl` uses it, and Ciam never does: src/vendor/hoist-statics.ts says why.
      { find: /^hoist-non-react-statics$/, replacement: new URL('./src/vendor/hoist-statics.ts', import.meta.url).pathname },
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
      // The small modules most screens share (checks, the remembered accounts, the lock's clock,
      // the passkey switch) in one chunk of their own: one request and one gzip stream, not five.
      output: {
        codeSplitting: {
          groups: [
            { name: 'main', tags: ['$initial'] },
            {
              name: 'forms',
              test: /\/src\/(?:lib\/(?:validate|accounts|countdown|passkey-gate)|components\/(?:lock-reset|field))\.tsx?$/,
            },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
