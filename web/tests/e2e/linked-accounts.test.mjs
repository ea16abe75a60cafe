// Linked accounts in Chromium against `ciam serve` with WeChat pointed at ciam-fakes (the local
// server of WeChat's documented protocol), in both languages: the security centre offers "Link
// WeChat", the browser leaves for the (fake) QR page and comes back to the secure page, which
// confirms the link with this tab's bind and lists it; then Remove after a confirmation. axe with
// every rule on the offer, the linked row (light and dark) and the confirmation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakes } from './fakes.mjs';
import { axeEveryRule, createAccount, launchBrowser, LOCALES, requirements, setStorage, startServer } from './harness.mjs';

const fakes = await startFakes();
const skip = requirements() || fakes.skip;

describe('linked accounts in the security centre', { skip }, () => {
  let server;
  before(async () => {
    server = await startServer({
      env: {
        CIAM_WECHAT_APP_ID: 'wxfakeweb0000001',
        CIAM_WECHAT_APP_SECRET: 'fake-web-app-secret',
        CIAM_WECHAT_OPEN_BASE: fakes.page('wechat'),
        CIAM_WECHAT_API_BASE: fakes.api('wechat'),
      },
    });
  });
  after(async () => {
    await server?.stop();
  });

  for (const L of LOCALES) {
    it(`links WeChat and removes it (${L})`, async () => {
      const user = await createAccount(server);
      await fakes.control('wechat', 'next-user', { unionid: `o-${L}-${Date.now()}`, nickname: 'Zhang' });
      const browser = await launchBrowser({ locale: L });
      try {
        const page = await browser.page();
        await setStorage(page, server.base, { ciam_token: user.token, lastActionTime: String(Date.now()) });
        await page.goto(`${server.base}/${L}/personal/secure`);
        const link = page.locator('[data-testid="link-wechat"]');
        await link.waitFor();
        assert.equal((await link.textContent()).trim(), L === 'zh-CN' ? '关联微信' : 'Link WeChat');
        assert.deepEqual(await axeEveryRule(page), [], 'axe: the offer to link');
        await link.click();
        // Away to the platform and back: the secure page confirms with this tab's bind.
        const note = page.locator('[data-testid="linked-note"]');
        await page.waitForURL((u) => u.pathname === `/${L}/personal/secure` && !u.search.includes('wechatLink'));
        await page.locator('[data-testid="linked"][data-provider="wechat"]').waitFor();
        assert.equal(await note.textContent(), L === 'zh-CN' ? '已关联您的微信账号。' : 'Your WeChat account is linked.');
        assert.match(await page.locator('[data-testid="linked"]').textContent(), /Zhang/);
        for (const colorScheme of ['light', 'dark']) {
          await page.emulateMedia({ colorScheme });
          assert.deepEqual(await axeEveryRule(page), [], `axe: the linked row (${colorScheme})`);
        }

        await page.locator('[data-testid="linked-remove"]').click();
        await page.locator('[data-testid="linked-remove-confirm"]').waitFor();
        assert.deepEqual(await axeEveryRule(page), [], 'axe: the confirmation (dark)');
        await page.locator('[data-testid="linked-remove-confirm"]').click();
        await page.locator('[data-testid="link-wechat"]').waitFor();
        assert.equal(await note.textContent(), L === 'zh-CN' ? '已移除微信账号。' : 'The WeChat account was removed.');
        assert.deepEqual(browser.errors, []);
      } finally {
        await browser.close();
      }
    });
  }
});
