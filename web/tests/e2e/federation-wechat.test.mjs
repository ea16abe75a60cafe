// Sign in with WeChat in real Chromium (issue 33 "Must show", docs/federation-design.md §3.1,
// §4.1, §5.2): `ciam-fakes` plays WeChat (its website QR login and its Official Account
// authorization, answering as the platform documents; the person who "scans and approves" is set
// through its control API), `ciam serve` is pointed at it through the environment, both locales:
//  - a new WeChat user signs up through the QR login: the "Or sign in with" row, the phone proof
//    with Ciam's own code, the sign-up's fields; then the next WeChat sign-in goes straight in;
//  - a WeChat user whose proven phone has an account is linked to it after that proof;
//  - inside WeChat (a MicroMessenger user agent) the Official Account's authorization is used;
//  - a snapshot-mode user is refused with what to tap; a person who declines at WeChat, and WeChat
//    down, are said in words naming WeChat.
// Every federation screen on the way is checked with axe and every rule, light and dark, 1280 and
// 390 px wide, and no page reports a CSP violation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { flowKit, startFakes } from './fakes.mjs';
import { createAccount, LOCALES, ROOT, storage, suite, where } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const MICROMESSENGER =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.47.2560(0x28002F35) NetType/WIFI Language/zh_CN';

// ciam-fakes' registered WeChat apps (functions/fakes/src/wechat.rs); WeChat's API host (the code
// exchange, the profile) goes through the relay, so a test can take the API down while the
// browser's pages stay up.
const fakes = await startFakes();

const { skip: missing, ctx } = suite({
  server: {
    env: {
      CIAM_WECHAT_APP_ID: 'wxfakeweb0000001',
      CIAM_WECHAT_APP_SECRET: 'fake-web-app-secret',
      CIAM_WECHAT_OA_APP_ID: 'wxfakeoa00000001',
      CIAM_WECHAT_OA_APP_SECRET: 'fake-oa-app-secret',
      CIAM_WECHAT_OPEN_BASE: fakes.page('wechat'),
      CIAM_WECHAT_API_BASE: fakes.api('wechat'),
    },
  },
});

const skip = missing || fakes.skip;

/** The next person to scan and approve (or decline) at WeChat (ciam-fakes' control API). */
const nextPerson = (person) => fakes.control('wechat', 'next-user', person);
const { everyWay, newPhone, provePhone, say, signInPage, tabTo, unique } = flowKit(ctx);

for (const L of LOCALES) {
  describe(`sign in with WeChat (${L})`, { skip }, () => {
    const t = messages[L];
    const wechat = t['federation.wechat'];

    it('a new user: the QR login, the phone proof and the sign-up; the next sign-in goes straight in', async () => {
      const unionid = unique('ounew');
      await nextPerson({ unionid, nickname: '张三' });
      const page = await signInPage(L, { query: '?from=e2e' });
      const row = page.locator('[data-testid="federation-row"]');
      await row.waitFor();
      assert.equal(await row.locator('h2').textContent(), t['federation.row']);
      assert.equal(await page.locator('[data-testid="federation-wechat"]').textContent(), wechat);
      await everyWay(page, `the "Or sign in with" row (${L})`);
      // Nothing started by itself.
      assert.equal(where(page), `/${L}/passport/signin?from=e2e`);
      // With the keyboard only.
      await tabTo(page, page.locator('[data-testid="federation-wechat"]'));
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="federation-phone"]').waitFor();
      assert.equal(where(page), `/${L}/passport/signin?from=e2e`, 'the pending token left the address');
      await everyWay(page, `the phone proof (${L})`);
      const phone = newPhone();
      await provePhone(page, phone);
      const signUp = page.locator('[data-testid="federation-signup"]');
      await signUp.waitFor();
      assert.equal(await signUp.locator('h2').textContent(), t['federation.signUpTitle']);
      assert.equal(await signUp.locator('input[name="userName"]').inputValue(), '', 'the nickname is not the name');
      await signUp.locator('button[type="submit"]').click();
      await signUp.locator('[aria-invalid="true"]').first().waitFor();
      await everyWay(page, `the sign-up with errors (${L})`);
      // With the keyboard only: the focus went to the first field in error.
      const userName = unique('wx');
      await tabTo(page, signUp.locator('input[name="userName"]'));
      await page.keyboard.type(userName);
      await tabTo(page, signUp.locator('input[name="company"]'));
      await page.keyboard.type('Acme Ltd');
      await tabTo(page, signUp.locator('input[name="acceptTerms"]'));
      await page.keyboard.press('Space');
      await tabTo(page, signUp.locator('button[type="submit"]'));
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/${L}/personal/info?from=e2e`);
      assert.ok(await storage(page, 'ciam_token'), 'signed in');
      const info = await (await fetch(`${ctx.server.base}/ciam/v1/auth/info`, { headers: { authorization: `Bearer ${await storage(page, 'ciam_token')}` } })).json();
      assert.equal(info.userName, userName);
      // Signed out, the same WeChat user comes straight back in (a linked subject: a login code).
      const again = await signInPage(L);
      await again.locator('[data-testid="federation-wechat"]').click();
      await again.waitForURL(`**/${L}/personal/info`);
    });

    it('an existing account is linked after its phone is proven, and only then', async () => {
      const phone = newPhone();
      const user = await createAccount(ctx.server, { account: phone });
      await nextPerson({ unionid: unique('oulink') });
      const page = await signInPage(L);
      await page.locator('[data-testid="federation-wechat"]').click();
      await provePhone(page, phone);
      await page.waitForURL(`**/${L}/personal/info`);
      const info = await (await fetch(`${ctx.server.base}/ciam/v1/auth/info`, { headers: { authorization: `Bearer ${await storage(page, 'ciam_token')}` } })).json();
      assert.equal(info.userName, user.userName, 'signed in as the phone\'s account');
    });

    it('inside WeChat: the Official Account\'s authorization', async () => {
      await nextPerson({ unionid: unique('ouoa') });
      const page = await signInPage(L, { userAgent: MICROMESSENGER });
      const visited = [];
      const seen = (r) => r.isNavigationRequest() && visited.push(r.url());
      page.on('request', seen);
      await page.locator('[data-testid="federation-wechat"]').click();
      await page.locator('[data-testid="federation-phone"]').waitFor();
      page.off('request', seen);
      assert.ok(visited.some((u) => u.includes('/wechat/connect/oauth2/authorize') && u.includes('snsapi_userinfo')), `the OA authorization: ${visited.join(' ')}`);
      assert.ok(!visited.some((u) => u.includes('/connect/qrconnect')), 'not the QR login');
      await page.close();
    });

    it('a snapshot-mode user is refused with what to tap', async () => {
      await nextPerson({ unionid: unique('ousnap'), snapshot: true });
      const page = await signInPage(L, { userAgent: MICROMESSENGER });
      await page.locator('[data-testid="federation-wechat"]').click();
      const hint = page.locator('[data-testid="federation-snapshot"]');
      await hint.waitFor();
      assert.equal(await hint.textContent(), say(t['federation.snapshot'], { provider: wechat }));
      assert.equal(await storage(page, 'ciam_token'), null);
      await everyWay(page, `the snapshot hint after WeChat (${L})`);
      await page.close();
    });

    it('a person who declines at WeChat, and WeChat down: said in words naming WeChat, nobody signed in', async () => {
      await nextPerson({ unionid: unique('oudecline'), decline: true });
      let page = await signInPage(L);
      await page.locator('[data-testid="federation-wechat"]').click();
      const error = page.locator('[data-testid="federation-error"]');
      await error.waitFor();
      assert.equal(await error.textContent(), say(t['federation.cancelled'], { provider: wechat }));
      // WeChat's pages answer the browser; its API is down when Ciam exchanges the code.
      await nextPerson({ unionid: unique('oudown') });
      page = await signInPage(L);
      await fakes.apiDown('wechat', async () => {
        await page.locator('[data-testid="federation-wechat"]').click();
        const down = page.locator('[data-testid="federation-error"]');
        await down.waitFor();
        assert.equal(await down.textContent(), say(t['federation.down'], { provider: wechat }));
      });
      assert.equal(await storage(page, 'ciam_token'), null);
    });
  });
}
