// The whole journey through the UI, in both languages: sign up (the code comes from the dev
// outbox), sign in with the password, reach the personal page, log out; then sign in with a code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, expectLanding, expectTitle, LOCALES, ROOT, setStorage, settled, storage, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Journey-2026!';

for (const L of LOCALES) {
  describe(`journey (${L})`, { skip }, () => {
    const t = messages[L];
    const mail = uniqueMail(`journey-${L.toLowerCase()}`);
    const userName = `ui_${L.slice(0, 2)}${Date.now().toString(36)}`;

    it(`chooses ${L} (${L === 'en-US' ? 'with the header language button' : 'stored before load'})`, async () => {
      const page = await ctx.browser.page();
      const { base } = ctx.server;
      if (L === 'zh-CN') {
        await setStorage(page, base, { umi_locale: 'zh-CN' });
        await expectLanding(page, base, '/en-US/passport/signin', '/zh-CN/passport/signin');
      } else {
        await setStorage(page, base, { umi_locale: 'zh-CN' });
        await expectLanding(page, base, '/zh-CN/passport/signin?from=journey', '/zh-CN/passport/signin?from=journey');
        const button = page.locator('header .lang');
        assert.equal(await button.getAttribute('lang'), 'en-US');
        await button.click();
        await page.waitForURL('**/en-US/passport/signin?from=journey');
        await settled(page);
        assert.equal(await storage(page, 'umi_locale'), 'en-US');
      }
      assert.equal(await page.getAttribute('html', 'lang'), L);
      await expectTitle(page, t['signin.title']);
    });

    it('signs up through the form, reading the code from the dev outbox', async () => {
      const page = await ctx.browser.page();
      await page.locator('[data-testid="link-register"]').click();
      await page.waitForURL(`**/${L}/passport/register**`);
      const form = page.locator('form[data-testid="register"]');
      await form.waitFor();
      await expectTitle(page, t['register.title']);
      await form.locator('[name="userName"]').fill(userName);
      await form.locator('[name="company"]').fill('Acme (Shanghai) Co., Ltd.');
      await form.locator('[name="account"]').fill(mail);
      await form.locator('[data-testid="send-code"]').click();
      const code = await ctx.server.codeFor(mail, 'register');
      assert.match(code, /^\d{6}$/);
      // The resend countdown starts (aria-disabled: the button stays focusable).
      await page.waitForFunction(() => document.querySelector('[data-testid="send-code"]')?.getAttribute('aria-disabled') === 'true');
      await form.locator('[name="code"]').fill(code);
      await form.locator('[name="country"]').selectOption('CN');
      await form.locator('[name="password"]').fill(PASSWORD);
      await form.locator('[name="confirmPassword"]').fill(PASSWORD);
      await form.locator('[name="acceptTerms"]').check();
      await form.locator('button[type="submit"]').click();
      await page.waitForURL(`**/${L}/passport/signin**`, { timeout: 20_000 });
      // Said in the sign-in card, above the form (not a toast over the heading).
      await page.locator('.card [data-testid="signin-notice"]', { hasText: t['register.done'] }).waitFor();
      assert.equal(await page.locator('.toast').count(), 0, 'no toast');
      assert.equal(await storage(page, 'ciam_token'), null, 'sign-up alone does not sign in');
    });

    it('signs in with the password and reaches the personal page', async () => {
      const page = await ctx.browser.page();
      await settled(page);
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(mail);
      await form.locator('[name="password"]').fill(PASSWORD);
      await form.locator('button[type="submit"]').click();
      await page.waitForURL(`**/${L}/personal/info**`, { timeout: 20_000 });
      await page.locator('[data-testid="info-username"]').waitFor();
      assert.equal((await page.locator('[data-testid="info-username"]').textContent())?.trim(), userName);
      // "Account created, please sign in" went with the sign-in screen: nothing covers this one.
      assert.equal(await page.locator('.toast').count(), 0, 'no toast after sign-in');
      assert.equal(await page.getByText(t['register.done']).count(), 0, 'the sign-up notice is gone');
      await expectTitle(page, t['info.title']);
      assert.ok(await storage(page, 'ciam_token'), 'the token is stored');
      assert.ok(Number(await storage(page, 'lastActionTime')) > 0, 'the time of the last action is stored');
    });

    it('reaches the security centre and back', async () => {
      const page = await ctx.browser.page();
      await page.locator(`a[href="/${L}/personal/secure"]`).first().click();
      await page.waitForURL(`**/${L}/personal/secure`);
      await page.locator('[data-testid="change-password-open"]').waitFor();
      await expectTitle(page, t['secure.title']);
      await page.locator(`a[href="/${L}/personal/info"]`).first().click();
      await page.locator('[data-testid="info-username"]').waitFor();
    });

    it('logs out: the session ends here and on the server', async () => {
      const page = await ctx.browser.page();
      const token = await storage(page, 'ciam_token');
      await page.locator('[data-testid="logout"]').click();
      await page.waitForURL(`**/${L}/passport/signin**`);
      assert.equal(await storage(page, 'ciam_token'), null);
      const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token);
      assert.equal(info.status, 401);
      assert.equal(info.json.reason, 'AUTHORIZATION_FAILED');
      await expectLanding(page, ctx.server.base, `/${L}/personal/info`, `/${L}/passport/signin`);
    });

    it('signs in again with a verification code', async () => {
      const page = await ctx.browser.page();
      // The account signed in on this browser is offered ("choose account").
      // (It shows the name over the masked address; the row carries the account it stands for.)
      const remembered = page.locator(`[data-testid="remembered-account"][data-account="${mail}"]`);
      await remembered.waitFor();
      await remembered.locator('button.account-pick').click();
      await page.locator('[data-testid="signin-mode-code"]').click();
      const form = page.locator('form[data-testid="signin-code"]');
      await form.waitFor();
      assert.equal(await form.locator('[name="account"]').inputValue(), mail);
      await form.locator('[data-testid="send-code"]').click();
      const code = await ctx.server.codeFor(mail, 'login');
      await form.locator('[name="code"]').fill(code);
      await form.locator('button[type="submit"]').click();
      await page.waitForURL(`**/${L}/personal/info**`, { timeout: 20_000 });
      assert.equal((await page.locator('[data-testid="info-username"]').textContent())?.trim(), userName);
      await page.locator('[data-testid="logout"]').click();
      await page.waitForURL(`**/${L}/passport/signin**`);
      assert.equal(await storage(page, 'ciam_token'), null);
      assert.ok(where(page).startsWith(`/${L}/passport/signin`));
    });

    it('no uncaught page errors', () => {
      assert.deepEqual(ctx.browser.errors, []);
    });
  });
}
