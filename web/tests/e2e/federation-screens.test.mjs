// The federation screens that the address alone draws (docs/federation-design.md §3.5, §5.2), in
// real Chromium against `ciam serve` with no provider configured, both locales: a provider's
// refusal, the snapshot-mode hint, the in-WeChat "open in your browser" steps with the link to
// copy, and the phone proof of a pending sign-in done with the keyboard only (the server refuses
// the unknown pending token: the screen says the sign-in expired). Each with axe and every rule,
// light and dark, 1280 and 390 px wide. No provider configured: no "Or sign in with" row, and
// nothing of federation loads on a plain sign-in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { axeEveryRule, expectLanding, LOCALES, ROOT, setStorage, settled, suite, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
/** A message with its `{provider}` filled in. */
const say = (text, provider) => text.replaceAll('{provider}', provider);

/** axe with every rule in both schemes at both viewports, on the page as it is. */
async function everyWay(page, label) {
  const found = [];
  for (const vp of VIEWPORTS) {
    await page.setViewportSize(vp);
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const v of await axeEveryRule(page)) found.push(`[${vp.width}x${vp.height} ${colorScheme}] ${v}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(VIEWPORTS[0]);
  assert.deepEqual(found, [], `axe (every tag) on ${label} (${where(page)})`);
}

for (const L of LOCALES) {
  describe(`federation screens drawn from the address (${L})`, { skip }, () => {
    const t = messages[L];
    const wechat = t['federation.wechat'];
    /** Opens the sign-in at `query`, this tab holding a bind when `bind` is set. */
    const open = async (query, { bind = null } = {}) => {
      const page = await ctx.browser.page();
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await page.evaluate((b) => {
        sessionStorage.clear();
        if (b) sessionStorage.setItem('ciam_fed_bind', b);
      }, bind);
      await page.goto(`${ctx.server.base}/${L}/passport/signin${query}`);
      await settled(page);
      return page;
    };

    it('no provider configured: no row, and no federation code or words loaded', async () => {
      const page = await ctx.browser.page();
      const loaded = [];
      const seen = (r) => loaded.push(r.url());
      page.on('request', seen);
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, `/${L}/passport/signin`, `/${L}/passport/signin`);
      await page.waitForLoadState('networkidle');
      page.off('request', seen);
      assert.equal(await page.locator('[data-testid="federation-row"]').count(), 0);
      assert.ok(loaded.some((u) => u.endsWith('/ciam/v1/auth/federation')), 'the providers were asked');
      assert.deepEqual(loaded.filter((u) => /federation[-.][^/]*\.js$/.test(u)), [], 'no federation chunk');
    });

    it('a refusal from the provider, in words naming it, the address cleaned', async () => {
      const page = await open('?wechatError=FEDERATION_CANCELLED&appId=a1');
      const error = page.locator('[data-testid="federation-error"]');
      await error.waitFor();
      assert.equal(await error.textContent(), say(t['federation.cancelled'], wechat));
      assert.equal(where(page), `/${L}/passport/signin?appId=a1`);
      await everyWay(page, `a provider's refusal (${L})`);
    });

    it('a snapshot-mode user: what to tap', async () => {
      const page = await open('?wechatError=FEDERATION_SNAPSHOT_USER');
      const hint = page.locator('[data-testid="federation-snapshot"]');
      await hint.waitFor();
      assert.equal(await hint.textContent(), say(t['federation.snapshot'], wechat));
      assert.match(await hint.textContent(), /使用完整服务/);
      await everyWay(page, `the snapshot hint (${L})`);
    });

    it('in WeChat without its own authorization: the steps and the link, copied with the keyboard', async () => {
      const page = await open('?wechatError=FEDERATION_OPEN_IN_BROWSER');
      const note = page.locator('[data-testid="federation-open-in-browser"]');
      await note.waitFor();
      assert.deepEqual(await note.locator('li').allTextContents(), [t['federation.openStep1'], t['federation.openStep2'], say(t['federation.openStep3'], wechat)]);
      // Keyboard only: Tab reaches the copy button, Enter presses it.
      const copy = page.locator('[data-testid="federation-copy-link"]');
      for (let i = 0; i < 40 && !(await copy.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
      assert.ok(await copy.evaluate((b) => b === document.activeElement), 'the copy button is in the tab order');
      await page.keyboard.press('Enter');
      // Copied, or (no clipboard for this page) the link shown to select.
      await page.locator(`text=${t['federation.copied']}`).or(page.locator('input.fed-link')).first().waitFor();
      await everyWay(page, `open in your browser (${L})`);
    });

    it('the phone proof of a pending sign-in, with the keyboard only; an unknown pending token is said to have expired', async () => {
      const page = await open('?wechatPending=unknown-pending', { bind: 'bind-of-this-tab' });
      const section = page.locator('[data-testid="federation-phone"]');
      await section.waitFor();
      assert.equal(await section.locator('h2').textContent(), t['federation.phoneTitle']);
      assert.equal(where(page), `/${L}/passport/signin`);
      await everyWay(page, `the phone proof (${L})`);
      const phone = `139${String(Date.now() % 1e8).padStart(8, '0')}`;
      const field = section.locator('input[name="account"]');
      for (let i = 0; i < 40 && !(await field.evaluate((f) => f === document.activeElement)); i++) await page.keyboard.press('Tab');
      await page.keyboard.type(phone);
      await page.keyboard.press('Tab'); // no captcha row: on to the code
      const send = section.locator('[data-testid="send-code"]');
      for (let i = 0; i < 5 && !(await send.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      const code = await ctx.server.codeFor(phone, 'link');
      await section.locator('input[name="code"]:focus').waitFor();
      await page.keyboard.type(code);
      await page.keyboard.press('Enter');
      const refused = page.locator('[data-testid="federation-refused"]');
      await refused.waitFor();
      assert.equal(await refused.textContent(), say(t['federation.expired'], wechat));
      assert.equal(await section.locator('form').count(), 0, 'the form is put away');
      await everyWay(page, `the phone proof, expired (${L})`);
    });
  });
}
