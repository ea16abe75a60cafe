// The account centre laid out for the screen it is on (issue 12 §4, §5), in both languages, against
// a real `ciam serve` in real Chromium: the side navigation at 1280x800 (each link lands on its
// section: the address's hash, the section in view, aria-current, the focus in it), one column
// with the sections' menu above it at 390x844 with 24 px touch targets, the dark tokens under a dark colour scheme (and
// axe clean there), the picker forgetting an account the server reports gone, "Open in
// authenticator app" on a touch phone only, and the backup codes copied to the clipboard and printed
// alone.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import {
  apiCall,
  CHROMIUM,
  CHROMIUM_ARGS,
  createAccount,
  expectAccessible,
  LOCALES,
  ROOT,
  setStorage,
  settled,
  solveCaptcha,
  storage,
  suite,
  uniqueMail,
} from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Centre-2026!';
const SECTIONS = [
  ['profile', 'info', 'personal.sections.profile'],
  ['security', 'secure', 'personal.sections.security'],
  ['two-factor', 'secure', 'personal.sections.twoFactor'],
  ['sessions', 'secure', 'personal.sections.sessions'],
  ['privacy', 'secure', 'personal.sections.privacy'],
  ['apps', 'info', 'personal.sections.apps'],
];
// Whether the sign-in forms tell the screen about a refused sign-in (lib/account-picker.ts's
// AccountRefused, consumed by the code form of features/auth): until then that case is a todo.
const REFUSAL_WIRED = readFileSync(join(ROOT, 'web/src/features/auth/code-signin.tsx'), 'utf8').includes('AccountRefused');

/** An RFC 6238 code (HMAC-SHA1, 30 s, 6 digits) for a Base32 secret, `skew` steps from now. */
function totp(secret, skew = 0) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + skew));
  const h = createHmac('sha1', key).update(msg).digest();
  const o = h[19] & 15;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function signedIn(page, base, token, locale) {
  await setStorage(page, base, { ciam_token: token, lastActionTime: String(Date.now()), umi_locale: locale });
}

async function open(page, url, ready) {
  await page.goto(url);
  await settled(page);
  await page.locator(ready).first().waitFor();
}

/** Where the element with `id` is, against the viewport. */
const placeOf = (page, id) =>
  page.evaluate((i) => {
    const el = document.getElementById(i);
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: innerHeight, focusInside: el.contains(document.activeElement) };
  }, id);

for (const L of LOCALES) {
  describe(`account centre (${L})`, { skip }, () => {
    const t = messages[L];
    let user;
    const base = () => ctx.server.base;
    const page = async () => {
      const p = await ctx.browser.page();
      await p.setViewportSize({ width: 1280, height: 800 });
      await p.emulateMedia({ colorScheme: 'light', media: 'screen' });
      return p;
    };

    it('at 1280x800 a side navigation beside the content; each link lands on its section', async () => {
      user = await createAccount(ctx.server, { account: uniqueMail(`centre-${L.toLowerCase()}`), password: PASSWORD });
      const p = await page();
      await signedIn(p, base(), user.token, L);
      await open(p, `${base()}/${L}/personal/info`, '[data-testid="profile-form-open"]');
      const nav = p.getByTestId('centre-nav');
      assert.ok(await nav.isVisible(), 'the side navigation shows');
      const navBox = await nav.boundingBox();
      const mainBox = await p.locator('.centre-main').boundingBox();
      assert.ok(navBox.x + navBox.width <= mainBox.x, 'the navigation is beside the content, not above it');
      assert.ok(mainBox.width > 440, `the content column is wider than the sign-in card (${mainBox.width} px)`);
      for (const [id, pageName, label] of SECTIONS) {
        const link = nav.locator(`a[data-section="${id}"]`);
        assert.equal((await link.textContent()).trim(), t[label]);
        assert.equal(await link.getAttribute('href'), `/${L}/personal/${pageName}#${id}`);
        await link.click();
        await p.waitForURL(`**/${L}/personal/${pageName}#${id}`);
        await settled(p);
        await p.locator(`#${id} h2`).first().waitFor();
        await p
          .waitForFunction((i) => document.getElementById(i)?.contains(document.activeElement), id, { timeout: 5000 })
          .catch(async () => assert.fail(`${id}: focus on ${await p.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))}`));
        // Scrolled there: the section starts in the viewport (at its top unless the page ends first).
        await p
          .waitForFunction(
            (i) => {
              const r = document.getElementById(i).getBoundingClientRect();
              const end = document.documentElement.scrollHeight - innerHeight - scrollY < 2;
              return r.top >= -1 && (r.top < 48 || (end && r.top < innerHeight - 48));
            },
            id,
            { timeout: 5000 },
          )
          .catch(async () => assert.fail(`${id}: not in view: ${JSON.stringify(await placeOf(p, id))}`));
        const at = await placeOf(p, id);
        assert.ok(at.focusInside, `${id}: the focus is in the section`);
        assert.equal(await link.getAttribute('aria-current'), 'location', `${id}: its link is the current one`);
        assert.equal(await nav.locator('a[aria-current]').count(), 1);
      }
      // An address typed with a section lands there too (arrival, not a click).
      await open(p, `${base()}/${L}/personal/secure#sessions`, '#sessions h2');
      await p.waitForFunction(() => document.getElementById('sessions')?.contains(document.activeElement));
      const at = await placeOf(p, 'sessions');
      assert.ok(at.top >= -1 && at.top < at.height, `the sessions section is in view (top ${at.top})`);
    });

    it('at 390x844 one column with the sections\' menu above it, every control at least 24 px', async () => {
      const p = await page();
      await p.setViewportSize({ width: 390, height: 844 });
      // One section at a time on a phone: the two-factor one by its address.
      await open(p, `${base()}/${L}/personal/secure#two-factor`, '[data-testid="totp-status"]');
      // The sections' menu (issue 34 item 2) above the content, not beside it.
      const nav = await p.getByTestId('centre-nav').boundingBox();
      const main = await p.locator('.centre-main').boundingBox();
      assert.ok(nav && nav.y + nav.height <= main.y, 'the sections\' menu is above the content on a phone');
      assert.ok(main.width <= 390, `one column (${main.width} px)`);
      const small = await p.evaluate(() =>
        [...document.querySelectorAll('button, input[type="checkbox"], .links a, .foot a, .personal-bar a')]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => ({ el: el.outerHTML.slice(0, 80), r: el.getBoundingClientRect() }))
          .filter(({ r }) => r.width < 24 || r.height < 24)
          .map(({ el, r }) => `${el} ${r.width}x${r.height}`),
      );
      assert.deepEqual(small, [], 'touch targets under 24x24 px');
      await open(p, `${base()}/${L}/passport/signin`, 'form');
      await p.setViewportSize({ width: 1280, height: 800 });
    });

    it('a dark colour scheme applies the dark tokens (and stays accessible)', async () => {
      const p = await page();
      await open(p, `${base()}/${L}/personal/secure`, '[data-testid="totp-status"]');
      const colours = () =>
        p.evaluate(() => ({
          page: getComputedStyle(document.documentElement).backgroundColor,
          card: getComputedStyle(document.querySelector('.card')).backgroundColor,
          text: getComputedStyle(document.querySelector('h1')).color,
          scheme: getComputedStyle(document.documentElement).colorScheme,
        }));
      const light = await colours();
      await p.emulateMedia({ colorScheme: 'dark' });
      const dark = await colours();
      assert.equal(light.scheme, 'light dark');
      assert.notEqual(dark.page, light.page, 'the page background changes');
      assert.notEqual(dark.card, light.card, 'the card background changes');
      assert.notEqual(dark.text, light.text, 'the text colour changes');
      assert.equal(dark.page, 'rgb(17, 20, 24)', 'the dark --color-bg');
      await expectAccessible(p, `security centre, dark (${L})`);
      await open(p, `${base()}/${L}/personal/info`, '[data-testid="profile-form-open"]');
      await expectAccessible(p, `personal centre, dark (${L})`);
      await p.emulateMedia({ colorScheme: 'light' });
    });

    it('the picker drops an account the server reports gone (deactivated)', { todo: REFUSAL_WIRED ? false : 'needs AccountRefused in features/auth/code-signin.tsx (package A)' }, async () => {
      const gone = await createAccount(ctx.server, { account: uniqueMail(`gone-${L.toLowerCase()}`), password: PASSWORD });
      const deactivated = await apiCall(base(), 'PATCH', '/auth/deactivation', { password: PASSWORD }, gone.token);
      assert.equal(deactivated.status, 200, JSON.stringify(deactivated.json));
      const p = await page();
      await setStorage(p, base(), {
        umi_locale: L,
        ciam_accounts: JSON.stringify([
          { account: gone.account, lastUsed: Date.now() },
          { account: user.account, lastUsed: Date.now() - 1000 },
        ]),
      });
      await open(p, `${base()}/${L}/passport/signin`, '[data-testid="remembered-account"]');
      const row = p.locator(`[data-testid="remembered-account"][data-account="${gone.account}"]`);
      await row.locator('button.account-pick').click();
      await p.getByTestId('signin-mode-code').click();
      const form = p.locator('form[data-testid="signin-code"]');
      await form.waitFor();
      assert.equal(await form.locator('[name="account"]').inputValue(), gone.account);
      // The code is sent through the API (the captcha is the server's proof of work either way).
      const sent = await apiCall(base(), 'POST', '/auth/identity', { account: gone.account, purpose: 'login', captcha: await solveCaptcha(base()) });
      assert.equal(sent.status, 200, JSON.stringify(sent.json));
      await form.locator('[name="code"]').fill(await ctx.server.codeFor(gone.account, 'login'));
      await form.locator('button[type="submit"]').click();
      await form.locator('[role="alert"]', { hasText: t['error.MAIL_NOT_FOUND'] }).first().waitFor();
      const left = JSON.parse((await storage(p, 'ciam_accounts')) ?? '[]').map((a) => a.account);
      assert.deepEqual(left, [user.account], 'the gone account is forgotten, the other kept');
      await open(p, `${base()}/${L}/passport/signin`, '[data-testid="remembered-account"]');
      assert.equal(await p.locator(`[data-testid="remembered-account"][data-account="${gone.account}"]`).count(), 0);
      assert.equal(await p.getByTestId('remembered-account').count(), 1);
    });

    it('offers "Open in authenticator app" (otpauth://) beside the QR on a touch phone only', async () => {
      const p = await page();
      await signedIn(p, base(), user.token, L);
      await open(p, `${base()}/${L}/personal/secure#two-factor`, '[data-testid="totp-enable"]');
      await p.getByTestId('totp-enable').click();
      await p.getByTestId('totp-qr').waitFor();
      assert.equal(await p.getByTestId('totp-open-app').count(), 0, 'no app link with a mouse');

      const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      try {
        const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, locale: L });
        const q = await phone.newPage();
        await signedIn(q, base(), user.token, L);
        await open(q, `${base()}/${L}/personal/secure#two-factor`, '[data-testid="totp-enable"]');
        await q.getByTestId('totp-enable').tap();
        const link = q.getByTestId('totp-open-app');
        await link.waitFor();
        assert.equal((await link.textContent()).trim(), t['secure.totp.openApp']);
        assert.match(await link.getAttribute('href'), /^otpauth:\/\/totp\/.+secret=[A-Z2-7]+/);
        const qr = await q.getByTestId('totp-qr').boundingBox();
        const box = await link.boundingBox();
        assert.ok(box.y >= qr.y + qr.height - 1 && box.y - (qr.y + qr.height) < 80, 'right under the QR code');
        assert.ok(box.height >= 24, 'a touch target');
      } finally {
        await browser.close();
      }
    });

    it('copies the backup codes to the clipboard and prints them alone', async () => {
      const p = await page();
      await ctx.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base() });
      await signedIn(p, base(), user.token, L);
      await open(p, `${base()}/${L}/personal/secure#two-factor`, '[data-testid="totp-enable"]');
      await p.getByTestId('totp-enable').click();
      const key = (await p.getByTestId('totp-manual-key').textContent()).replace(/\s/g, '');
      await p.getByTestId('totp-code').fill(totp(key));
      await p.locator('form[data-testid="totp-form"] button[type="submit"]').click();
      const list = p.getByTestId('backup-codes');
      await list.waitFor();
      const codes = (await list.locator('li').allTextContents()).map((c) => c.trim());
      assert.ok(codes.length >= 8 && codes.every((c) => /^\d{8}$/.test(c)), JSON.stringify(codes));
      await p.getByTestId('backup-copy').click();
      await p.getByTestId('backup-said').filter({ hasText: t['secure.backup.copied'] }).waitFor();
      assert.equal(await p.getByTestId('backup-said').getAttribute('aria-live'), 'polite');
      assert.equal(await p.evaluate(() => navigator.clipboard.readText()), codes.join('\n'));
      // Printed: only the heading and the codes are drawn.
      await p.emulateMedia({ media: 'print' });
      const shown = await p.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' && el.children.length === 0)
          .map((el) => el.textContent.trim())
          .filter(Boolean),
      );
      await p.emulateMedia({ media: 'screen' });
      assert.deepEqual(shown.slice(1), codes, 'the printed page: the heading, then the codes');
      await p.getByTestId('backup-done').click();
      await p.getByTestId('totp-disable').waitFor();
    });

    it('no uncaught page errors', () => {
      assert.deepEqual(ctx.browser.errors, []);
    });
  });
}
