// Issue 12 §1/§2 in a real browser, both locales: a wrong password is an inline alert that stays
// (no toast); 5 wrong passwords lock the form with a live countdown and a disabled submit; the
// two-factor modal's error is inside the dialog; show-password; the live password checklist.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { apiCall, base32, createAccount, expectLanding, LOCALES, ROOT, setStorage, storage, suite, totp, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

async function signInPage(L) {
  const page = await ctx.browser.page();
  await setStorage(page, ctx.server.base, { umi_locale: L });
  await expectLanding(page, ctx.server.base, `/${L}/passport/signin`, `/${L}/passport/signin`);
  return page;
}

for (const L of LOCALES) {
  describe(`errors where the eye is (${L})`, { skip }, () => {
    const t = messages[L];

    it('a wrong password is an inline alert that stays; then 5 wrong lock the form with a countdown', async () => {
      const user = await createAccount(ctx.server, { account: uniqueMail(`inline-${L.toLowerCase()}`) });
      const page = await signInPage(L);
      const form = page.locator('form[data-testid="signin-password"]');
      const alert = form.locator('[data-testid="form-alert"] [role="alert"]');
      const submit = form.locator('button[type="submit"]');
      await form.locator('[name="account"]').fill(user.account);
      await form.locator('[name="password"]').fill('Wrong-Password-0!');
      await submit.click();
      await alert.filter({ hasText: t['error.PASSWORD_ERROR'] }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'form-alert', 'focus on the alert');
      await sleep(3500); // longer than a toast lives
      assert.equal(await alert.textContent(), t['error.PASSWORD_ERROR'], 'the alert stays');
      assert.equal(await page.locator('.toast').count(), 0, 'no toast');
      const locked = t['form.locked'];
      let tries = 1;
      for (; tries <= 6; tries++) {
        await form.locator('[name="password"]').fill(`Wrong-Password-${tries}!`);
        assert.equal(await alert.textContent(), '', 'editing clears it');
        await submit.click();
        await page.waitForFunction(() => !!document.querySelector('[data-testid="form-alert"] [role="alert"]')?.textContent);
        const text = await alert.textContent();
        if (text.includes(locked)) break;
        assert.equal(text, t['error.PASSWORD_ERROR']);
        await page.waitForFunction(() => !document.querySelector('form[data-testid="signin-password"] button[type="submit"]')?.disabled);
      }
      assert.ok(tries <= 5, `locked after ${tries} further tries`);
      const timer = form.locator('[data-testid="unlock-in"]');
      const first = await timer.textContent();
      assert.match(first, /1[45]:\d\d/);
      assert.equal(await submit.isDisabled(), true, 'submission disabled while locked');
      await sleep(2100);
      assert.notEqual(await timer.textContent(), first, 'the countdown is live');
      await form.locator('[name="password"]').fill('anything');
      assert.ok((await alert.textContent()).includes(locked), 'the lock stays while the user types');
      assert.equal(await storage(page, 'ciam_token'), null);
      assert.equal(await page.locator('.toast').count(), 0, 'no toast');
    });

    it('the two-factor modal shows a wrong code inside the dialog, cleared and refocused', async () => {
      const { base } = ctx.server;
      const user = await createAccount(ctx.server, { account: uniqueMail(`inline-mfa-${L.toLowerCase()}`) });
      const uri = await apiCall(base, 'GET', '/auth/totp/url', undefined, user.token);
      assert.equal(uri.status, 200, JSON.stringify(uri.json));
      const key = base32(new URL(uri.json.url).searchParams.get('secret'));
      const enabled = await apiCall(base, 'POST', '/auth/totp/enable', { code: totp(key) }, user.token);
      assert.equal(enabled.status, 200, JSON.stringify(enabled.json));
      const page = await signInPage(L);
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(user.account);
      await form.locator('[name="password"]').fill(user.password);
      await form.locator('button[type="submit"]').click();
      const dialog = page.getByRole('dialog', { name: t['mfa.title'] });
      const code = dialog.locator('[data-testid="mfa-code"]');
      await code.waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'mfa-code');
      const right = totp(key);
      await code.fill(right === '000000' ? '111111' : '000000');
      await dialog.getByRole('button', { name: t['mfa.verify'] }).click();
      await dialog.locator('[role="alert"]', { hasText: t['error.TOTP_VERIFY_FAILED'] }).waitFor();
      assert.equal(await code.inputValue(), '', 'the input is cleared');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'mfa-code', 'and focused');
      assert.equal(await page.locator('.toast').count(), 0, 'no toast behind the backdrop');
    });

    it('sign-up: show-password and the live password checklist', async () => {
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/register`, `/${L}/passport/register`);
      const form = page.locator('form[data-testid="register"]');
      const pw = form.locator('[name="password"]');
      const show = form.locator('[data-testid="show-password"]');
      assert.equal(await show.getAttribute('aria-label'), t['field.showPassword']);
      assert.equal(await show.getAttribute('aria-pressed'), 'false');
      const box = await show.boundingBox();
      assert.ok(box.width >= 24 && box.height >= 24, `target ${box.width}x${box.height}`);
      await pw.fill('abc');
      await show.click();
      assert.equal(await pw.getAttribute('type'), 'text');
      assert.equal(await show.getAttribute('aria-pressed'), 'true');
      await show.click();
      assert.equal(await pw.getAttribute('type'), 'password');
      const rules = form.locator('[data-testid="password-rules"]');
      assert.equal(await rules.getAttribute('aria-live'), 'polite');
      const met = async () => rules.locator('li').evaluateAll((lis) => lis.map((li) => li.dataset.met === 'true'));
      assert.deepEqual(await met(), [false, false, true, false, false, true]);
      assert.ok((await rules.textContent()).includes(t['validate.pwUpper']));
      await pw.fill('Ciam-Demo-2026!');
      assert.deepEqual(await met(), [true, true, true, true, true, true]);
      await form.locator('[name="account"]').fill('ann.example.com');
      await form.locator('[data-testid="send-code"]').click();
      await form.locator('.field-error', { hasText: t['validate.mail'] }).waitFor();
    });
  });
}
