// Spec §8 error handling in a real browser: authorization failure, the account lock message, and
// the embedded mode (no toast; the error is posted to the host page at the serviceUrl's origin).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount, expectLanding, launchBrowser, LOCALES, ROOT, setStorage, settled, storage, suite, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));


/**
 * A host page at another origin (localhost instead of 127.0.0.1: same server, another site) with
 * the embedded sign-in in a frame. Chromium denies storage to such a third-party frame, so the
 * frame's locale comes from the browser language: each language gets a browser speaking it.
 */
async function hostWithFrame(L, query) {
  const browser = await launchBrowser({ locale: L });
  const page = await browser.page();
  const frameOrigin = ctx.server.base;
  const hostOrigin = frameOrigin.replace('127.0.0.1', 'localhost');
  await page.goto(`${hostOrigin}/ciam/dev/outbox`);
  await page.evaluate((s) => {
    window.__messages = [];
    window.addEventListener('message', (e) => window.__messages.push({ origin: e.origin, data: e.data }));
    const f = document.createElement('iframe');
    f.src = s;
    f.width = '600';
    f.height = '600';
    document.body.append(f);
  }, `${frameOrigin}/${L}/embedded/signin${query(hostOrigin)}`);
  const frame = page.frameLocator('iframe');
  await frame.locator('form[data-testid="signin-password"]').waitFor();
  return { browser, page, frame, frameOrigin, hostOrigin };
}

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

    it('VERIFICATION_ATTEMPT_CODE_LIMIT: the lock shows the minutes left, rounded up', async () => {
      const user = await createAccount(ctx.server);
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/signin`, `/${L}/passport/signin`);
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(user.account);
      const wrong = t['error.PASSWORD_ERROR'];
      for (let i = 0; i < 5; i++) {
        await form.locator('[name="password"]').fill(`Wrong-Password-${i}!`);
        await form.locator('button[type="submit"]').click();
        await page.locator('.toast', { hasText: wrong }).first().waitFor();
        await page.waitForFunction(() => !document.querySelector('form[data-testid="signin-password"] button[type="submit"]')?.hasAttribute('disabled'));
      }
      await form.locator('[name="password"]').fill(user.password);
      await form.locator('button[type="submit"]').click();
      const locked = t['error.lockedFor'].replace('{n}', '15');
      await page.locator('.toast', { hasText: locked }).first().waitFor();
      assert.equal(await storage(page, 'ciam_token'), null);
      assert.ok(where(page).startsWith(`/${L}/passport/signin`));
    });

    it('embedded: no toast; the error goes to the host page at the serviceUrl origin only', async () => {
      const user = await createAccount(ctx.server);
      const { browser, page, frame, frameOrigin } = await hostWithFrame(L, (host) => `?serviceUrl=${host}/app&validateMsg=notice`);
      try {
        const form = frame.locator('form[data-testid="signin-password"]');
        await form.locator('[name="account"]').fill(user.account);
        await form.locator('[name="password"]').fill('Wrong-Password-1!');
        await form.locator('button[type="submit"]').click();
        await page.waitForFunction(() => window.__messages.length > 0);
        const [msg] = await page.evaluate(() => window.__messages);
        assert.equal(msg.origin, frameOrigin);
        assert.equal(msg.data.reason, 'PASSWORD_ERROR');
        assert.equal(msg.data.errMsg, t['error.PASSWORD_ERROR']);
        assert.equal(await frame.locator('.toast').count(), 0, 'no toast when embedded');
        // The refusal shows in the form itself.
        await frame.locator('[role="alert"]', { hasText: t['error.PASSWORD_ERROR'] }).first().waitFor();
        // Signing in tells the host too, at its origin.
        await form.locator('[name="password"]').fill(user.password);
        await form.locator('button[type="submit"]').click();
        await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ciam:signed-in'));
        assert.ok((await page.evaluate(() => window.__messages)).every((m) => m.origin === frameOrigin));
        assert.deepEqual(browser.errors, [], 'no uncaught errors in the frame (storage is denied there)');
      } finally {
        await browser.close();
      }
    });

    it('embedded without validateMsg=notice: nothing is posted', async () => {
      const user = await createAccount(ctx.server);
      const { browser, page, frame } = await hostWithFrame(L, (host) => `?serviceUrl=${host}/app`);
      try {
        const form = frame.locator('form[data-testid="signin-password"]');
        await form.locator('[name="account"]').fill(user.account);
        await form.locator('[name="password"]').fill('Wrong-Password-1!');
        await form.locator('button[type="submit"]').click();
        await frame.locator('[role="alert"]', { hasText: t['error.PASSWORD_ERROR'] }).first().waitFor();
        await sleep(300);
        assert.deepEqual(await page.evaluate(() => window.__messages.filter((m) => m.data?.reason)), []);
      } finally {
        await browser.close();
      }
    });
  });
}
