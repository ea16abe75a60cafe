// The operator's brand (issue 34 item 7), both languages, against a real `ciam serve` in real
// Chromium: a built app branded by web/scripts/brand.mjs (name in both languages, a light and a
// dark logo, a favicon, an accent) shows the name and logo in the header and the name in the
// document's title on the sign-in page, the consent page, the personal centre and the console,
// in the light and the dark theme with the accent's shades; the favicon link answers 200; axe with
// every rule passes on those screens in both themes; the embedded sign-in shows the brand above
// its form only when the host asks (brand=show). The page as served paints the brand before any
// script runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { applyBrand, brandColours } from '../../scripts/brand.mjs';
import { axeEveryRule, consoleUser, createAccount, DIST, expectTitle, LOCALES, ROOT, setStorage, settled, suite, uniqueMail } from './harness.mjs';

const NAME = { 'en-US': 'Acme ID', 'zh-CN': '爱克美账号' };
const ACCENT = '#7a1f5c';
const SHADES = brandColours(ACCENT);

// A branded copy of the built app, made before the server starts (suite's `before`).
const work = mkdtempSync(join(tmpdir(), 'ciam-e2e-brand-'));
const branded = join(work, 'dist');
if (existsSync(join(DIST, 'index.html'))) {
  const src = join(work, 'brand');
  mkdirSync(src);
  const svg = (fill) => `<svg xmlns="http://www.w3.org/2000/svg" width="28" height="28" viewBox="0 0 28 28"><rect width="28" height="28" rx="6" fill="${fill}"/></svg>`;
  writeFileSync(join(src, 'logo.svg'), svg(ACCENT));
  writeFileSync(join(src, 'logo-dark.svg'), svg(SHADES.dark.accent));
  writeFileSync(join(src, 'icon.svg'), svg(ACCENT));
  writeFileSync(join(src, 'brand.json'), JSON.stringify({ name: NAME, accent: ACCENT, logo: 'logo.svg', logoDark: 'logo-dark.svg', favicon: 'icon.svg' }));
  applyBrand(src, DIST, branded);
}
after(() => rmSync(work, { recursive: true, force: true }));

const { skip, ctx } = suite({ server: { dist: branded } });
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const APP_NAME = { 'zh-CN': '品牌测试应用', 'en-US': 'Brand Test App' };
let app = null;

/** The page in `scheme`, as `path` shows it, with `storage` set first (a signed-in user). */
async function open(L, path, scheme, storage = {}) {
  const page = await ctx.browser.page();
  await page.emulateMedia({ colorScheme: scheme });
  await setStorage(page, ctx.server.base, { umi_locale: L, ...storage });
  await page.goto(`${ctx.server.base}${path}`);
  await page.locator('h1').first().waitFor();
  await settled(page);
  return page;
}

/** The logo drawn before the header's name (brand.css): its image's path and its box. */
const logoOf = (brand) =>
  brand.evaluate((el) => {
    const s = getComputedStyle(el, '::before');
    return { src: /url\("?([^")]*)/.exec(s.backgroundImage)?.[1] ?? s.backgroundImage, width: s.width, height: s.height, display: s.display };
  });

/** The brand on the page as it is now: header name and the logo shown, title, accent, favicon. */
async function expectBrand(page, L, scheme, label) {
  const header = page.locator('header.top .brand');
  assert.equal((await header.textContent()).trim(), NAME[L], `${label}: the name in the header`);
  const logo = await logoOf(header);
  assert.equal(new URL(logo.src, ctx.server.base).pathname, scheme === 'dark' ? '/brand/logo-dark.svg' : '/brand/logo.svg', `${label}: the ${scheme} logo`);
  assert.deepEqual([logo.width, logo.height, logo.display === 'none'], ['28px', '28px', false], `${label}: the logo's box`);
  assert.equal((await fetch(new URL(logo.src, ctx.server.base))).status, 200, `${label}: the logo answers`);
  await page.waitForFunction((n) => document.title.endsWith(` · ${n}`), NAME[L]);
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--color-accent').trim());
  assert.equal(accent, SHADES[scheme].accent, `${label}: the ${scheme} accent`);
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  const res = await fetch(new URL(icon, ctx.server.base));
  assert.equal(res.status, 200, `${label}: the favicon ${icon}`);
  assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
  assert.deepEqual(await axeEveryRule(page), [], `${label}: axe, every rule`);
}

describe('the brand an operator sets', { skip }, () => {
  it('index.html paints the name, the logo, the icon and the accent before any script runs', async () => {
    const html = await (await fetch(`${ctx.server.base}/zh-CN/passport/signin`)).text();
    assert.match(html, /<title>爱克美账号<\/title>/);
    assert.match(html, /<header class="top"><span class="brand">爱克美账号<\/span><\/header>/);
    assert.match(html, /<script type="module" src="\/brand\/brand.js"><\/script>/);
    assert.match(html, /<link rel="icon" href="\/brand\/favicon.svg" \/>/);
    assert.match(html, /<link rel="stylesheet" href="\/brand\/brand.css" \/>/);
    const css = await fetch(`${ctx.server.base}/brand/brand.css`);
    assert.equal(css.status, 200);
    const sheet = await css.text();
    assert.match(sheet, new RegExp(`--color-accent: ${ACCENT};`));
    assert.match(sheet, /--brand-logo: url\("\/brand\/logo.svg"\);/);
  });

  for (const L of LOCALES) {
    describe(L, () => {
      const t = messages[L];

      it('the sign-in page, light and dark', async () => {
        for (const scheme of ['light', 'dark']) {
          const page = await open(L, `/${L}/passport/signin`, scheme);
          await expectTitle(page, `${t['signin.title']} · ${NAME[L]}`);
          await expectBrand(page, L, scheme, `${L} sign-in ${scheme}`);
        }
      });

      it('the consent page, titled for its app, light and dark', async () => {
        app ??= ctx.server.registerApp({ name: APP_NAME, description: 'The brand test partner', serviceUrls: ['https://shop.example.com/cb'], scopes: ['nickname'] }).app;
        const user = await createAccount(ctx.server, { account: uniqueMail(`brand-consent-${L.toLowerCase()}`) });
        for (const scheme of ['light', 'dark']) {
          const page = await open(L, `/${L}/passport/authorize?appId=${app.appId}&serviceUrl=https://shop.example.com/cb`, scheme, {
            ciam_token: user.token,
            lastActionTime: String(Date.now()),
          });
          await page.locator('[data-testid="authorize-allow"]').waitFor();
          // The running text names the product too ("would like to use your Acme ID account"), never "Ciam".
          const asks = (await page.locator('#authorize-asks, [data-testid="authorize"] p').first().textContent()).trim();
          assert.ok(asks.includes(NAME[L]) && !/\bCiam\b/.test(asks), `the consent's text names the brand: ${asks}`);
          assert.doesNotMatch(await page.locator('main').textContent(), /\bCiam\b/, 'no "Ciam" left on the consent page');
          const heading = t['authorize.titleApp'].replace('{app}', APP_NAME[L]);
          assert.equal((await page.locator('h1').textContent()).trim(), heading);
          await expectTitle(page, `${heading} · ${NAME[L]}`);
          await expectBrand(page, L, scheme, `${L} consent ${scheme}`);
        }
      });

      it('the personal centre, light and dark', async () => {
        const user = await createAccount(ctx.server, { account: uniqueMail(`brand-info-${L.toLowerCase()}`) });
        for (const scheme of ['light', 'dark']) {
          const page = await open(L, `/${L}/personal/info`, scheme, { ciam_token: user.token, lastActionTime: String(Date.now()) });
          await expectBrand(page, L, scheme, `${L} personal centre ${scheme}`);
        }
      });

      it('the console, light and dark', async () => {
        const viewer = await consoleUser(ctx.server, 'viewer', `brand-${L.toLowerCase()}`);
        for (const scheme of ['light', 'dark']) {
          const page = await open(L, `/${L}/admin`, scheme, { ciam_token: viewer.token, lastActionTime: String(Date.now()) });
          await page.locator('.console-bar').waitFor();
          await settled(page);
          await expectBrand(page, L, scheme, `${L} console ${scheme}`);
        }
      });

      it('the embedded sign-in: the brand above the form when the host asks, not otherwise', async () => {
        const page = await ctx.browser.page();
        await page.emulateMedia({ colorScheme: 'light' });
        const q = `serviceUrl=https://shop.example.com/cb&validateMsg=notice`;
        await page.goto(`${ctx.server.base}/${L}/embedded/signin?${q}&theme=dark&brand=show`);
        await page.locator('[data-testid="embedded-signin"]').waitFor();
        await settled(page);
        const brand = page.locator('header.top .brand');
        assert.equal(await brand.isVisible(), true, 'brand=show: the brand is shown');
        assert.equal((await brand.textContent()).trim(), NAME[L]);
        assert.equal(await page.locator('header.top .lang').isVisible(), false, 'the frame keeps only the brand of the header');
        // The host's theme=dark wins over the system's light: the dark logo and accent.
        assert.equal(new URL((await logoOf(brand)).src, ctx.server.base).pathname, '/brand/logo-dark.svg');
        assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--color-accent').trim()), SHADES.dark.accent);
        assert.deepEqual(await axeEveryRule(page), [], 'axe on the branded frame');
        await page.goto(`${ctx.server.base}/${L}/embedded/signin?${q}`);
        await page.locator('[data-testid="embedded-signin"]').waitFor();
        await settled(page);
        assert.equal(await page.locator('header.top').isVisible(), false, 'not asked: no header in the frame');
      });
    });
  }
});
