// Accessibility: axe-core finds no violations on any screen, in either language. Also the page
// title (spec §2), <html lang> and dir on each.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createAccount, expectAccessible, expectLanding, expectTitle, LOCALES, ROOT, setStorage, suite } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

/** [label, url, title id or null, what to wait for]. */
const PUBLIC = (L) => [
  ['sign-in', `/${L}/passport/signin`, 'signin.title', 'form[data-testid="signin-password"]'],
  ['register', `/${L}/passport/register`, 'register.title', 'form[data-testid="register"]'],
  ['find password', `/${L}/find/password`, 'find.title', 'form[data-testid="find-password"]'],
  ['privacy policy', `/${L}/agreement/privacy`, 'privacy.title', 'h1'],
  ['service agreement', `/${L}/agreement/protocols`, 'protocols.title', 'h1'],
  ['user manual', `/${L}/agreement/manual`, 'manual.title', 'h1'],
  ['deactivate account / logout', `/${L}/logout`, 'logout.title', 'h1'],
  ['authorize', `/${L}/passport/authorize?appName=Partner%20App`, 'authorize.title', 'h1'],
  ['embedded sign-in', `/${L}/embedded/signin?serviceUrl=https://host.example.com/page&validateMsg=notice`, null, 'form'],
];
const PRIVATE = (L) => [
  ['personal info', `/${L}/personal/info`, 'info.title', '[data-testid="info-username"]'],
  ['security centre', `/${L}/personal/secure`, 'secure.title', '[data-testid="change-password-open"]'],
];

for (const L of LOCALES) {
  describe(`accessibility (${L})`, { skip }, () => {
    const t = messages[L];
    const check = async (page, [label, url, title, ready]) => {
      await expectLanding(page, ctx.server.base, url, url, { stableMs: 100 });
      await page.locator(ready).first().waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), L, `${label}: <html lang>`);
      assert.equal(await page.getAttribute('html', 'dir'), 'ltr', `${label}: <html dir>`);
      if (title) await expectTitle(page, t[title], `${label}: title`);
      await expectAccessible(page, `${label} (${L})`);
    };

    for (const screen of PUBLIC(L)) {
      it(screen[0], async () => {
        const page = await ctx.browser.page();
        await setStorage(page, ctx.server.base, { umi_locale: L });
        await check(page, screen);
      });
    }

    it('sign-in, verification-code mode', async () => {
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/signin`, `/${L}/passport/signin`);
      await page.locator('[data-testid="signin-mode-code"]').click();
      await page.locator('form[data-testid="signin-code"]').waitFor();
      await expectAccessible(page, `sign-in by code (${L})`);
    });

    it('register, with every field in error', async () => {
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/register`, `/${L}/passport/register`);
      await page.locator('form[data-testid="register"] button[type="submit"]').click();
      await page.locator('form[data-testid="register"] [aria-invalid="true"]').first().waitFor();
      await expectAccessible(page, `register with errors (${L})`);
    });

    it('signed out (/signout)', async () => {
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, '/signout', '/signout');
      await page.locator('[data-testid="signed-out"]').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), L);
      await expectAccessible(page, `signout (${L})`);
    });

    describe('signed in', () => {
      for (const screen of PRIVATE(L)) {
        it(screen[0], async () => {
          const user = await createAccount(ctx.server);
          const page = await ctx.browser.page();
          await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: user.token, lastActionTime: String(Date.now()) });
          await check(page, screen);
        });
      }
      it('personal info, profile incomplete, with the sign-in picker afterwards', async () => {
        const user = await createAccount(ctx.server);
        const page = await ctx.browser.page();
        await setStorage(page, ctx.server.base, {
          umi_locale: L,
          ciam_token: user.token,
          lastActionTime: String(Date.now()),
          ciam_accounts: JSON.stringify([{ account: user.account, lastUsed: Date.now() }]),
        });
        await expectLanding(page, ctx.server.base, `/${L}/personal`, `/${L}/personal/info`);
        // The profile form is closed behind its row: opened here, to check it too.
        await page.locator('[data-testid="profile-form-open"]').click();
        await page.locator('[data-testid="profile-form"]').waitFor();
        await expectAccessible(page, `personal info with the profile form (${L})`);
        await page.locator('[data-testid="logout"]').click();
        await page.waitForURL(`**/${L}/passport/signin`);
        await page.locator('[data-testid="remembered-account"]').first().waitFor();
        await expectAccessible(page, `sign-in, choose an account (${L})`);
      });
    });
  });
}
