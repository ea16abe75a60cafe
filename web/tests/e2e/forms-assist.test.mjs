// Issue 12 §2 in a real browser through `ciam serve`, both locales, desktop and phone: autofill
// values; a real sign-up in which a code is sent with one press (no captcha click) and focus never
// drops to the body, then the sign-in screen prefilled with the account and the password focused;
// the country preselected from /auth/location and its search; focus on the heading after a route
// change.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { expectLanding, LOCALES, ROOT, setStorage, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

async function open(L, path, storage = {}, viewport = VIEWPORTS[0]) {
  const page = await ctx.browser.page();
  await page.setViewportSize(viewport);
  await setStorage(page, ctx.server.base, { umi_locale: L, ...storage });
  await expectLanding(page, ctx.server.base, `/${L}${path}`, `/${L}${path}`);
  return page;
}

const autocomplete = (form) =>
  form.locator('input[name], select[name]').evaluateAll((els) =>
    Object.fromEntries(els.filter((e) => e.type !== 'checkbox').map((e) => [e.name, e.getAttribute('autocomplete')])));
const active = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a === document.body || !a ? 'body' : a.getAttribute('name') ?? a.getAttribute('data-testid') ?? a.tagName.toLowerCase();
  });

for (const L of LOCALES) {
  describe(`forms that help (${L})`, { skip }, () => {
    const t = messages[L];

    it('autocomplete: the account is the username on sign-in and sign-up, never the display name', async () => {
      let page = await open(L, '/passport/signin');
      assert.deepEqual(await autocomplete(page.locator('form[data-testid="signin-password"]')), { account: 'username webauthn', password: 'current-password' });
      page = await open(L, '/passport/register');
      const ac = await autocomplete(page.locator('form[data-testid="register"]'));
      assert.equal(ac.account, 'username');
      assert.equal(ac.userName, 'nickname');
      assert.equal(ac.code, 'one-time-code');
      assert.equal(ac.password, 'new-password');
      assert.equal(ac.confirmPassword, 'new-password');
      assert.deepEqual(Object.keys(ac).filter((k) => ac[k] === 'username'), ['account']);
    });

    for (const viewport of VIEWPORTS) {
      it(`country at ${viewport.width}x${viewport.height}: preselected from /auth/location, and the search filters`, async () => {
        const page = await ctx.browser.page();
        await page.route('**/ciam/v1/auth/location', (r) => r.fulfill({ json: { country: 'DE', language: L } }));
        try {
          await open(L, '/passport/register', {}, viewport);
          const select = page.locator('form[data-testid="register"] select[name="country"]');
          await page.waitForFunction(() => document.querySelector('select[name="country"]')?.value === 'DE');
          assert.equal(await page.evaluate(() => localStorage.getItem('country')), 'DE');
          assert.notEqual(await select.evaluate((s) => s.options[0].value), '', 'no empty first option');
          const search = page.locator('[data-testid="country-search"]');
          assert.equal(await search.getAttribute('aria-label'), t['register.countrySearch']);
          for (const el of [search, select]) {
            const box = await el.boundingBox();
            assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width && box.height >= 24, `${JSON.stringify(box)} fits`);
          }
          await search.fill('+852');
          assert.equal(await select.inputValue(), 'HK');
          assert.deepEqual(await select.evaluate((s) => [...s.options].map((o) => o.value)), ['HK']);
          await search.press('Enter');
          assert.equal(await active(page), 'country');
          assert.equal(where(page), `/${L}/passport/register`, 'Enter did not submit');
          await search.fill(L === 'en-US' ? 'germ' : '德国');
          assert.equal(await select.inputValue(), 'DE');
        } finally {
          await page.unroute('**/ciam/v1/auth/location');
        }
      });
    }

    it('sign-up in one act per code, then the sign-in screen is prefilled (phone and desktop)', async () => {
      for (const viewport of VIEWPORTS) {
        const account = uniqueMail(`assist-${L.toLowerCase()}-${viewport.width}`);
        const page = await open(L, '/passport/register', { country: 'CN' }, viewport);
        const form = page.locator('form[data-testid="register"]');
        await form.locator('[name="userName"]').fill(`u${Date.now().toString(36)}${viewport.width}`);
        await form.locator('[name="company"]').fill('Acme Ltd');
        await form.locator('[name="account"]').fill(account);
        // The captcha solves itself once the form is in use: no click on it.
        const send = form.locator('[data-testid="send-code"]');
        await send.focus();
        await page.keyboard.press('Enter');
        assert.notEqual(await active(page), 'body', 'focus stays on the control while the code is sent');
        await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'code', null, { timeout: 30_000 });
        // Solved without a click, and no captcha row at all (the server did not ask).
        assert.equal(await form.locator('[data-testid="captcha"]').count(), 0);
        assert.equal(await form.locator('[data-testid="code-sent"]').textContent(), t['auth.codeSent']);
        assert.equal(await send.evaluate((b) => b.disabled), false, 'the countdown stays focusable');
        assert.equal(await send.getAttribute('aria-disabled'), 'true');
        await form.locator('[name="code"]').fill(await ctx.server.codeFor(account, 'register'));
        await form.locator('[name="password"]').fill('Ciam-Assist-2026!');
        await form.locator('[name="confirmPassword"]').fill('Ciam-Assist-2026!');
        await form.locator('#reg-terms').check();
        await form.locator('button[type="submit"]').click();
        await page.waitForURL((u) => u.pathname === `/${L}/passport/signin`);
        const signin = page.locator('form[data-testid="signin-password"]');
        await signin.waitFor();
        assert.equal(await signin.locator('[name="account"]').inputValue(), account);
        await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'password');
        await signin.locator('[name="password"]').fill('Ciam-Assist-2026!');
        await signin.locator('button[type="submit"]').click();
        await page.waitForURL((u) => u.pathname.startsWith(`/${L}/personal/`));
        await page.waitForFunction(() => document.activeElement?.tagName === 'H1', null, { timeout: 20_000 });
        await page.evaluate(() => localStorage.clear());
      }
    });

    it('a route change moves focus to the new screen\'s heading, not on the first load', async () => {
      const page = await open(L, '/passport/signin');
      assert.equal(await active(page), 'body', 'first load: focus left alone');
      await page.locator('[data-testid="link-register"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.pathname === `/${L}/passport/register`);
      await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), t['register.title'] ?? (await page.locator('h1').textContent()));
      assert.equal(await page.locator('h1').getAttribute('tabindex'), '-1');
      await page.goBack();
      await page.waitForURL((u) => u.pathname === `/${L}/passport/signin`);
      await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && !!document.querySelector('form[data-testid="signin-password"]'));
    });
  });
}
