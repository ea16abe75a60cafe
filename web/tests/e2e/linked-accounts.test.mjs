// Linked accounts in Chromium against `ciam serve` with WeChat pointed at ciam-fakes (the local
// server of WeChat's documented protocol), in both languages: the security centre offers "Link
// WeChat", the browser leaves for the (fake) QR page and comes back to the secure page, which
// confirms the link with this tab's bind and lists it; then Remove after a confirmation. axe with
// every rule on the offer, the linked row (light and dark) and the confirmation.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { axeEveryRule, createAccount, launchBrowser, LOCALES, requirements, ROOT, setStorage, startServer } from './harness.mjs';

const FAKES = process.env.CIAM_FAKES_BIN ?? join(ROOT, 'target/debug/ciam-fakes');
const skip = requirements() || (existsSync(FAKES) ? false : `e2e needs ciam-fakes at ${FAKES} (cargo build -p ciam-fakes)`);

/** ciam-fakes on a port of its own: answers its base URL and a stop. */
async function startFakes() {
  const child = spawn(FAKES, ['--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(String(d).trim().split(/\s+/).pop()));
    child.once('exit', (c) => reject(new Error(`ciam-fakes exited ${c}`)));
  });
  child.stdout.resume();
  return { base: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

describe('linked accounts in the security centre', { skip }, () => {
  let fakes;
  let server;
  before(async () => {
    fakes = await startFakes();
    const wechat = `${fakes.base}/wechat`;
    server = await startServer({
      env: {
        CIAM_WECHAT_APP_ID: 'wxfakeweb0000001',
        CIAM_WECHAT_APP_SECRET: 'fake-web-app-secret',
        CIAM_WECHAT_OPEN_BASE: wechat,
        CIAM_WECHAT_API_BASE: wechat,
      },
    });
  });
  after(async () => {
    await server?.stop();
    fakes?.stop();
  });

  for (const L of LOCALES) {
    it(`links WeChat and removes it (${L})`, async () => {
      const user = await createAccount(server);
      const person = await fetch(`${fakes.base}/wechat/_control/next-user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ unionid: `o-${L}-${Date.now()}`, nickname: 'Zhang' }),
      });
      assert.equal(person.status, 200);
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
