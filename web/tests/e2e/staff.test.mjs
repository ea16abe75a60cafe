// Staff sign-in federated to a real OpenID Connect provider: `oidc-provider` (idp.mjs) plays the
// company's identity provider in this process (its development login and consent pages), `ciam
// serve` is configured with it, and Chromium goes sign-in -> staff mode -> company button ->
// provider login -> consent -> back to Ciam, signed in on the personal page, in both languages.
// Then: the account is internal, a second sign-in finds the same account, a password sign-in asks
// to set a password, a non-company mail is refused with a visible error, and a replayed callback
// is refused. Last, login CSRF: a callback or staffCode URL another browser started signs no one
// in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, describe, it } from 'node:test';
import { signInAtIdpPage, startIdp } from './idp.mjs';
import { apiCall, freePort, launchBrowser, LOCALES, ROOT, setStorage, settled, storage, suite, where } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const DOMAIN = 'staff.ciam.example';
const CLIENT_ID = 'ciam-staff';
const CLIENT_SECRET = 'staff-secret-of-the-e2e-test-0123456789';


const idpPort = await freePort();
const ISSUER = `http://127.0.0.1:${idpPort}`;
const { skip, ctx } = suite({
  server: {
    args: ['--staff-issuer', ISSUER, '--staff-client-id', CLIENT_ID, '--staff-client-secret', CLIENT_SECRET, '--internal-domains', DOMAIN],
  },
});

/** The provider's people: any login works; `outsider` has a mail outside the company. */
const mailOf = (login) => (login.startsWith('outsider') ? `${login}@gmail.example` : `${login}@${DOMAIN}`);

let idp = null;
/**
 * While set, the provider keeps the redirect to ciam's callback here instead of sending the
 * browser there (what an attacker does with their own sign-in before sending the URL on).
 */
let hold = null;
/** The stand-in company provider (idp.mjs), once ciam's address (its redirect URI) is known. */
async function startProvider() {
  idp = await startIdp({
    port: idpPort,
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${ctx.server.base}/ciam/v1/auth/staff/callback`] }],
    accounts: (id) => ({ email: mailOf(id), email_verified: true, name: `Staff ${id}` }),
    async use(kctx, next) {
      await next();
      const to = String(kctx.response.get('location') ?? '');
      if (hold && to.startsWith(`${ctx.server.base}/ciam/v1/auth/staff/callback`)) {
        hold.push(to);
        kctx.status = 200;
        kctx.type = 'text/plain';
        kctx.body = 'held';
      }
    },
  });
}

/** Every callback URL the browser visited (to replay one). */
const callbacks = [];

/** Sign-in screen -> staff mode -> company button -> provider login and consent (when asked). */
async function staffSignIn(page, L, login, { query = '' } = {}) {
  const { base } = ctx.server;
  page.on('request', (r) => {
    if (r.url().includes('/ciam/v1/auth/staff/callback')) callbacks.push(r.url());
  });
  await setStorage(page, base, { umi_locale: L });
  await page.goto(`${base}/${L}/passport/signin${query}`);
  await settled(page);
  await page.locator('[data-testid="signin-staff"]').click();
  const company = page.locator('[data-testid="staff-company"]');
  assert.equal((await company.textContent())?.trim(), messages[L]['signin.staffCompany']);
  await company.click();
  // At the provider (a held callback keeps the browser there).
  await signInAtIdpPage(page, ISSUER, login, base);
}

async function signedInInfo(page) {
  const token = await storage(page, 'ciam_token');
  assert.ok(token, 'a session token is stored');
  const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token);
  assert.equal(info.status, 200, JSON.stringify(info.json));
  return info.json;
}

describe('staff sign-in through the company identity provider', { skip }, () => {
  // Inside the suite: runs after the harness started ciam.
  before(startProvider);
  after(async () => {
    if (process.env.STAFF_DEBUG) console.error(ctx.server?.log());
    await idp?.stop();
  });

  for (const L of LOCALES) {
    it(`signs a staff member in through the provider (${L}), then again into the same account`, async () => {
      // A fresh browser per person: the provider remembers who signed in there.
      const browser = await launchBrowser({ locale: L });
      try {
        const page = await browser.page();
        const login = `lilei-${L.toLowerCase()}`;
        await staffSignIn(page, L, login, { query: '?from=staff' });
        await page.waitForURL(`**/${L}/personal/info**`, { timeout: 20_000 });
        assert.equal(where(page), `/${L}/personal/info?from=staff`, 'the code left the address and the query came along');
        await page.locator('[data-testid="info-username"]').waitFor();
        const info = await signedInInfo(page);
        assert.equal(info.isEiamUser, true, 'the account is internal');
        assert.equal(info.tag.eiamUid, login);
        // No password yet: a password sign-in leads to setting one.
        const pw = await apiCall(ctx.server.base, 'POST', '/auth/login/password', { account: mailOf(login), password: 'Whatever-2026!' });
        assert.equal(pw.status, 403);
        assert.equal(pw.json.reason, 'EIAM_PASSWORD_UNSET');

        // Signed out of Ciam; the provider's session stays, so it answers at once this time.
        await page.evaluate(() => localStorage.removeItem('ciam_token'));
        await staffSignIn(page, L, login);
        await page.waitForURL(`**/${L}/personal/info**`, { timeout: 20_000 });
        const again = await signedInInfo(page);
        assert.equal(again.userId, info.userId, 'the second sign-in finds the same account');
        assert.deepEqual(browser.errors, []);
      } finally {
        await browser.close();
      }
    });
  }

  it('refuses a replayed callback', async () => {
    assert.ok(callbacks.length > 0, 'a callback was seen');
    const res = await fetch(callbacks[0], { redirect: 'manual' });
    assert.equal(res.status, 302);
    const to = res.headers.get('location') ?? '';
    assert.match(to, /\/passport\/signin\?staffError=AUTHORIZATION_FAILED/);
    assert.doesNotMatch(to, /staffCode/);
  });

  for (const L of LOCALES) {
    it(`refuses a provider account with a non-company mail, visibly (${L})`, async () => {
      // A fresh browser: no provider session, so its login page asks who this is.
      const browser = await launchBrowser({ locale: L });
      try {
        const page = await browser.page();
        await staffSignIn(page, L, `outsider-${L.toLowerCase()}`);
        await page.waitForURL(`**/${L}/passport/signin**`, { timeout: 20_000 });
        const error = page.locator('[data-testid="staff-error"]');
        await error.waitFor();
        assert.equal((await error.textContent())?.trim(), messages[L]['error.EIAM_INVALID_MAIL']);
        assert.equal(where(page), `/${L}/passport/signin`, 'the error left the address');
        assert.equal(await storage(page, 'ciam_token'), null);
        assert.deepEqual(browser.errors, []);
      } finally {
        await browser.close();
      }
    });
  }

  it('binds a sign-in to the browser that started it: a forwarded callback or staffCode URL signs no one in', async () => {
    const { base } = ctx.server;
    const attacker = await launchBrowser({ locale: 'en-US' });
    const victim = await launchBrowser({ locale: 'en-US' });
    try {
      // The attacker signs in with their own company account and keeps the callback URLs.
      const a = await attacker.page();
      hold = [];
      await staffSignIn(a, 'en-US', 'attacker-csrf');
      await staffSignIn(a, 'en-US', 'attacker-csrf');
      const [first, second] = hold;
      hold = null;
      assert.ok(first && second, 'two callbacks were held');
      await a.goto(`${base}/ciam/dev/outbox`);
      assert.notEqual(await a.evaluate(() => sessionStorage.getItem('ciam_staff_bind')), null, 'the attacker tab holds its bind');

      const v = await victim.page();
      const notSignedIn = async (label) => {
        const error = v.locator('[data-testid="staff-error"]');
        await error.waitFor();
        assert.ok((await error.textContent())?.trim(), `${label}: an error is shown`);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(await storage(v, 'ciam_token'), null, `${label}: not signed in`);
        assert.equal(where(v), '/en-US/passport/signin', `${label}: the code left the address`);
      };

      // 1. The victim opens the attacker's callback URL: the code is made, but for the
      //    attacker's browser; the victim's tab has no bind and does not redeem it.
      await setStorage(v, base, { umi_locale: 'en-US' });
      let redeemed = 0;
      v.on('request', (r) => {
        if (r.url().endsWith('/ciam/v1/auth/login/staff')) redeemed++;
      });
      await v.goto(first);
      await v.waitForURL('**/en-US/passport/signin**');
      await notSignedIn('callback URL');
      assert.equal(redeemed, 0, 'no bind: the code is not redeemed');

      // 2. The staffCode URL itself, opened by a victim whose tab holds a bind of its own: the
      //    server refuses the other browser's bind.
      const res = await fetch(second, { redirect: 'manual' });
      assert.equal(res.status, 302);
      const to = res.headers.get('location') ?? '';
      assert.match(to, /^\/en-US\/passport\/signin\?staffCode=/);
      await v.evaluate(() => sessionStorage.setItem('ciam_staff_bind', 'the-victims-own-bind-from-an-earlier-try'));
      const answer = v.waitForResponse((r) => r.url().endsWith('/ciam/v1/auth/login/staff'));
      await v.goto(`${base}${to}`);
      assert.equal((await answer).status(), 401);
      await notSignedIn('staffCode URL');
      assert.equal(await v.evaluate(() => sessionStorage.getItem('ciam_staff_bind')), null, 'the bind served once');
      assert.deepEqual(victim.errors, []);
      assert.deepEqual(attacker.errors, []);
    } finally {
      hold = null;
      await attacker.close();
      await victim.close();
    }
  });
});
