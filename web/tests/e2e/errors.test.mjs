// Spec §8 error handling in a real browser: authorization failure and the account lock message.
// The embedded mode (no toast; typed messages to the host) is covered by embedded.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAccount, expectLanding, LOCALES, ROOT, setStorage, settled, storage, suite, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));


for (const L of LOCALES) {
  describe(`error handling (${L})`, { skip }, () => {
    const t = messages[L];

    it('AUTHORIZATION_FAILED: the session is cleared and sign-in opens with the query minus serviceUrl', async () => {
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: 'u1.not-a-real-token', lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/info?serviceUrl=https://app.example.com/cb&from=mail`);
      await page.waitForURL(`**/${L}/passport/signin?from=mail`);
      await settled(page);
      assert.equal(where(page), `/${L}/passport/signin?from=mail`);
      assert.equal(await storage(page, 'ciam_token'), null);
      assert.equal(await storage(page, 'lastActionTime'), null);
      assert.equal(await page.locator('.toast').count(), 0, 'no message');
    });

    it('VERIFICATION_ATTEMPT_CODE_LIMIT: the lock is said once, and the wait once by its clock', async () => {
      const user = await createAccount(ctx.server);
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/signin`, `/${L}/passport/signin`);
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(user.account);
      const wrong = t['error.PASSWORD_ERROR'];
      const alert = form.locator('[data-testid="form-alert"] [role="alert"]');
      for (let i = 0; i < 4; i++) {
        await form.locator('[name="password"]').fill(`Wrong-Password-${i}!`);
        await form.locator('button[type="submit"]').click();
        await alert.filter({ hasText: wrong }).waitFor();
        await page.waitForFunction(() => !document.querySelector('form[data-testid="signin-password"] button[type="submit"]')?.hasAttribute('disabled'));
      }
      // The 5th failure locks the account: the form says so inline and cannot be sent.
      await form.locator('[name="password"]').fill('Wrong-Password-4!');
      await form.locator('button[type="submit"]').click();
      // The alert says the lock; the clock beside it the wait (15:00 or 14:59), and nothing else does.
      await alert.filter({ hasText: t['form.locked'] }).waitFor();
      const clock = await form.locator('[data-testid="unlock-in"]').textContent();
      assert.match(clock, new RegExp(`^${t['form.unlockIn'].replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{time}', '1[45]:\\d\\d')}$`));
      const said = await form.locator('[data-testid="form-alert"]').textContent();
      assert.equal(said.split(clock).length, 2, `the wait is said once: ${said}`);
      assert.doesNotMatch(said, /minute|分钟/, `no minutes beside the clock: ${said}`);
      assert.equal(await form.locator('button[type="submit"]').isDisabled(), true);
      assert.equal(await storage(page, 'ciam_token'), null);
      assert.ok(where(page).startsWith(`/${L}/passport/signin`));
    });
  });
}
