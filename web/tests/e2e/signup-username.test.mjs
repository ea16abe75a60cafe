// Issue 34 item 1 in a real browser, both locales, desktop and a 390 x 844 phone: sign-up says a
// taken username as it is typed, before anything is submitted or any code sent, offers a free
// suggestion that one press (or the keyboard) puts in the field, and says a name the rules refuse
// only as the field's own rule (as it is typed); axe with every rule on the page with the answer shown.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { axeEveryRule, createAccount, LOCALES, ROOT, setStorage, suite, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const before = (t, id) => t[id].split('{name}')[1].trim();

for (const L of LOCALES) {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    describe(`sign-up: the username as it is typed (${L}, ${viewport.width} wide)`, { skip }, () => {
      const t = messages[L];
      it('a taken name is said with a suggestion, before anything is sent; the suggestion is free', async () => {
        const { base } = ctx.server;
        const taken = `zw${Date.now().toString(36)}${viewport.width}${L === 'zh-CN' ? 'c' : 'e'}`;
        await createAccount(ctx.server, { account: uniqueMail(`username-${L.toLowerCase()}`), userName: taken });
        const page = await ctx.browser.page();
        await page.setViewportSize(viewport);
        await setStorage(page, base, { umi_locale: L });
        const sent = [];
        page.on('request', (r) => r.method() === 'POST' && sent.push(r.url()));
        await page.goto(`${base}/${L}/passport/register`);
        const form = page.locator('form[data-testid="register"]');
        await form.waitFor();
        const name = form.locator('[name="userName"]');
        await name.click();
        await page.keyboard.type(taken.toUpperCase());
        const status = page.getByTestId('username-status');
        await status.filter({ hasText: before(t, 'register.username.taken') }).waitFor();
        assert.equal(await status.getAttribute('aria-live'), 'polite');
        assert.deepEqual(sent.filter((u) => !u.includes('/client-errors')), [], 'nothing submitted, no code sent');
        const use = page.getByTestId('use-suggestion');
        const suggestion = (await use.textContent()).match(/[a-z0-9]+$/i)[0];
        // The keyboard reaches it from the field.
        await name.focus();
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'use-suggestion');
        await page.keyboard.press('Enter');
        assert.equal(await name.inputValue(), suggestion);
        await status.filter({ hasText: before(t, 'register.username.free') }).waitFor();
        const violations = await axeEveryRule(page);
        assert.deepEqual(violations, [], JSON.stringify(violations, null, 1));
        // A name the rules refuse (a doubled space) is not asked about: its field refuses it.
        await name.fill('zhang  wei');
        await page.waitForTimeout(800);
        assert.equal((await status.textContent()).trim(), '');
        assert.equal(await name.getAttribute('aria-invalid'), 'true');
        await page.close();
      });
    });
  }
}
