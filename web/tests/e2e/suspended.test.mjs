// Issue 34 item 4 in a real browser, both locales: a suspended customer's right password, and
// then a completed reset by code, are told the account is suspended and whom to contact (the
// build's CIAM_SUPPORT_* contact, default the website); a wrong password is still "Incorrect
// account or password". The API tests (functions/api/tests/api/suspended_truth.rs) compare a
// stranger's answers byte for byte on both engines.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, createAccount, expectLanding, LOCALES, ROOT, setStorage, solveCaptcha, storage, suite, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
// The text before the contact: the contact itself is a build setting.
const lead = (t) => t['error.ACCOUNT_SUSPENDED'].split('{contact}')[0];

for (const L of LOCALES) {
  describe(`a suspended customer is told the truth (${L})`, { skip }, () => {
    const t = messages[L];

    it('after the right password and after a reset by code; a wrong password says nothing', async () => {
      const { base } = ctx.server;
      const user = await createAccount(ctx.server, { account: uniqueMail(`suspended-${L.toLowerCase()}`) });
      ctx.server.suspend(user.account);
      const page = await ctx.browser.page();
      await setStorage(page, base, { umi_locale: L });
      await expectLanding(page, base, `/${L}/passport/signin`, `/${L}/passport/signin`);
      const form = page.locator('form[data-testid="signin-password"]');
      const alert = form.locator('[data-testid="form-alert"] [role="alert"]');
      await form.locator('[name="account"]').fill(user.account);
      await form.locator('[name="password"]').fill('Wrong-Password-0!');
      await form.locator('button[type="submit"]').click();
      await alert.filter({ hasText: t['error.PASSWORD_ERROR'] }).waitFor();

      await form.locator('[name="password"]').fill(user.password);
      await form.locator('button[type="submit"]').click();
      await alert.filter({ hasText: lead(t) }).waitFor();
      const said = await alert.textContent();
      assert.ok(!said.includes('{contact}') && said.length > lead(t).length + 3, `the contact is said: ${said}`);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'form-alert', 'focus on the alert');
      assert.equal(await storage(page, 'ciam_token'), null, 'no session');

      // The reset by code: the code proves the owner; the password is set, then the truth.
      await page.goto(`${base}/${L}/find/password`);
      const reset = page.locator('form[data-testid="find-password"]');
      await reset.waitFor();
      await reset.locator('[name="account"]').fill(user.account);
      const sent = await apiCall(base, 'POST', '/auth/identity', { account: user.account, purpose: 'resetPassword', captcha: await solveCaptcha(base) });
      assert.equal(sent.status, 200, JSON.stringify(sent.json));
      await reset.locator('[name="code"]').fill(await ctx.server.codeFor(user.account, 'resetPassword'));
      const fresh = 'Ciam-Fresh-2026!';
      await reset.locator('[name="password"]').fill(fresh);
      await reset.locator('[name="confirmPassword"]').fill(fresh);
      await reset.locator('button[type="submit"]').click();
      await reset.locator('[data-testid="form-alert"] [role="alert"]').filter({ hasText: lead(t) }).waitFor();
      assert.match(new URL(page.url()).pathname, /\/find\/password$/, 'stays on the reset');
      const signIn = await apiCall(base, 'POST', '/auth/login/password', { account: user.account, password: fresh });
      assert.equal(signIn.json?.reason, 'ACCOUNT_SUSPENDED', 'the new password is set, and still told');
      await page.close();
    });
  });
}
