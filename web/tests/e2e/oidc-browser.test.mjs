// The OpenID Connect provider with the browser in the middle (issue 5 §7), in both languages,
// against a real `ciam serve` in real Chromium. The relying party is `openid-client` (v6) plus a
// tiny http server started here at 127.0.0.1 (the app's serviceUrl = its redirect_uri): the
// library builds the authorization URL (PKCE S256, state, nonce, scope `openid nickname email`);
// Chromium opens it signed out, Ciam's sign-in screen takes the password, Ciam's consent screen
// shows the app and its scopes, Allow lands on the redirect_uri with code and state, and the
// library redeems exactly the URL the server received (id_token claims, userinfo). A second
// authorization goes straight through; Cancel (a fresh user) lands on the redirect_uri with
// error=access_denied and the state. oidc-client.test.mjs drives the same flow through the API.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as client from 'openid-client';
import {
  apiCall,
  createAccount,
  expectAccessible,
  expectTitle,
  LOCALES,
  ROOT,
  setStorage,
  suite,
  uniqueMail,
  where,
} from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Oidc-2026!';
const NAMES = { 'zh-CN': 'OIDC 合作门户', 'en-US': 'OIDC Partner Portal' };
// In the order the consent screen lists them (web/src/lib/partner.ts SCOPES).
const SCOPES = ['nickname', 'email'];

// ---- the relying party's callback: records every request it gets --------------------------------

const rp = { server: null, origin: '', hits: [] };
before(async () => {
  if (skip) return;
  rp.server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    rp.hits.push(new URL(req.url, rp.origin));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>relying party</title><h1>RP</h1>');
  });
  await new Promise((r) => rp.server.listen(0, '127.0.0.1', r));
  rp.origin = `http://127.0.0.1:${rp.server.address().port}`;
});
after(() => rp.server?.close());

/** The callback request received after hit number `before` with `pred`, waiting up to 15 s. */
async function callbackAfter(before, pred = () => true) {
  for (let i = 0; i < 150; i++) {
    const hit = rp.hits.slice(before).find((u) => u.pathname === '/cb' && pred(u));
    if (hit) return hit;
    await sleep(100);
  }
  throw new Error(`the relying party got no callback: ${rp.hits.map(String).join(', ')}`);
}

// ---- set-up through the API ---------------------------------------------------------------------

const app = { appId: '', secret: '', redirectUri: '', config: null };
let sawConsent = 0;

async function registerApp() {
  if (app.appId) return;
  app.redirectUri = `${rp.origin}/cb`;
  const created = ctx.server.registerApp({ name: NAMES, description: 'The e2e relying party', serviceUrls: [app.redirectUri], scopes: SCOPES });
  app.appId = created.app.appId;
  app.secret = created.appSecret;
  app.config = await client.discovery(new URL(issuer()), app.appId, app.secret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  // Whether the consent screen's Allow button was ever drawn, across navigations.
  await ctx.browser.context.exposeFunction('__ciamSawConsent', () => {
    sawConsent++;
  });
  await ctx.browser.context.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="authorize-allow"]')) window.__ciamSawConsent?.();
    }).observe(document, { subtree: true, childList: true });
  });
}

const issuer = () => `${ctx.server.base}/ciam/v1/oidc`;

/** A user created through the API, with its id (the id_token's sub). */
async function newUser(tag) {
  const user = await createAccount(ctx.server, { account: uniqueMail(tag), password: PASSWORD });
  const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, user.token);
  assert.equal(info.status, 200, JSON.stringify(info.json));
  return { ...user, id: info.json.userId };
}

/** A fresh authorization request of the library: its URL and what the callback is checked with. */
async function authorization(L) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(app.config, {
    redirect_uri: app.redirectUri,
    scope: 'openid nickname email',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ui_locales: L,
  });
  return { url, pkceCodeVerifier, state, nonce };
}

/** The library redeems the callback URL: id_token claims and userinfo are the user's. */
async function redeem(callback, auth, user) {
  const tokens = await client.authorizationCodeGrant(app.config, callback, {
    pkceCodeVerifier: auth.pkceCodeVerifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.scope, 'openid email nickname');
  const claims = tokens.claims();
  assert.equal(claims.iss, issuer());
  assert.equal(claims.aud, app.appId);
  assert.equal(claims.sub, user.id);
  assert.equal(claims.nonce, auth.nonce);
  assert.equal(claims.email, user.account);
  assert.equal(claims.nickname, user.userName);
  const info = await client.fetchUserInfo(app.config, tokens.access_token, claims.sub);
  assert.equal(info.sub, user.id);
  assert.equal(info.email, user.account);
  assert.equal(info.nickname, user.userName);
}

/** The callback the relying party received, checked against where the browser is. */
async function expectCode(page, before, auth) {
  await page.waitForURL((u) => u.href.startsWith(`${app.redirectUri}?`), { timeout: 20_000 });
  const hit = await callbackAfter(before);
  assert.equal(page.url(), hit.href, 'the browser is where the relying party was called');
  assert.ok(hit.searchParams.get('code'), `no code in ${hit}`);
  assert.equal(hit.searchParams.get('state'), auth.state);
  assert.equal(hit.searchParams.get('error'), null);
  return hit;
}

/** A waitForURL predicate: the page is at `pathname` on Ciam (whatever the query). */
const onPath = (pathname) => (u) => u.origin === ctx.server.base && u.pathname === pathname;

/** Opens the authorization URL signed out; Ciam's sign-in screen takes the password. */
async function signInThroughAuthorization(page, L, auth, account) {
  await setStorage(page, ctx.server.base, { umi_locale: L });
  await page.goto(auth.url.href);
  await page.waitForURL(onPath(`/${L}/passport/signin`));
  const q = new URLSearchParams(new URL(page.url()).search);
  assert.deepEqual([...q.keys()], ['oidcRequest'], 'sign-in keeps the stored request, and only it');
  const form = page.locator('form[data-testid="signin-password"]');
  await form.waitFor();
  await form.locator('[name="account"]').fill(account);
  await form.locator('[name="password"]').fill(PASSWORD);
  await form.locator('button[type="submit"]').click();
  return q.get('oidcRequest');
}

/** Waits for the consent screen of request `id` and checks what it says. */
async function expectConsentScreen(page, L, id) {
  const t = messages[L];
  await page.locator('[data-testid="authorize-allow"]').waitFor({ timeout: 20_000 });
  assert.equal(where(page), `/${L}/passport/authorize?oidcRequest=${id}`);
  await expectTitle(page, t['authorize.titleApp'].replace('{app}', NAMES[L]));
  assert.equal((await page.locator('[data-testid="authorize-app"]').textContent()).trim(), NAMES[L]);
  const scopes = (await page.locator('[data-testid="authorize-scopes"] li').allTextContents()).map((s) => s.trim());
  assert.deepEqual(scopes, SCOPES.map((s) => t[`scope.${s}`]));
}

// ---- the journeys -------------------------------------------------------------------------------

for (const L of LOCALES) {
  describe(`OpenID Connect in the browser (${L})`, { skip }, () => {
    let user;
    let first;

    it('a signed-out visitor signs in and comes back to the consent screen', async () => {
      await registerApp();
      user = await newUser(`oidc-browser-${L.toLowerCase()}`);
      const page = await ctx.browser.page();
      first = await authorization(L);
      const id = await signInThroughAuthorization(page, L, first, user.account);
      await expectConsentScreen(page, L, id);
    });

    it('the consent screen passes axe', async () => {
      await expectAccessible(await ctx.browser.page(), `OpenID Connect consent screen (${L})`);
    });

    it('Allow lands on the redirect_uri with code and state; the library gets the tokens', async () => {
      const page = await ctx.browser.page();
      const before = rp.hits.length;
      await page.locator('[data-testid="authorize-allow"]').click();
      const hit = await expectCode(page, before, first);
      await redeem(hit, first, user);
    });

    it('a second authorization goes straight through, without the screen', async () => {
      const page = await ctx.browser.page();
      const auth = await authorization(L);
      sawConsent = 0;
      const before = rp.hits.length;
      await page.goto(auth.url.href);
      const hit = await expectCode(page, before, auth);
      assert.equal(sawConsent, 0, 'the consent screen was not shown');
      await redeem(hit, auth, user);
    });

    it('Cancel (a fresh user) lands on the redirect_uri with error=access_denied and the state', async () => {
      const fresh = await newUser(`oidc-browser-cancel-${L.toLowerCase()}`);
      const page = await ctx.browser.page();
      const auth = await authorization(L);
      const id = await signInThroughAuthorization(page, L, auth, fresh.account);
      await expectConsentScreen(page, L, id);
      const before = rp.hits.length;
      await page.locator('[data-testid="authorize-cancel"]').click();
      await page.waitForURL((u) => u.href.startsWith(`${app.redirectUri}?`), { timeout: 20_000 });
      const hit = await callbackAfter(before);
      assert.equal(page.url(), hit.href);
      assert.equal(hit.searchParams.get('error'), 'access_denied');
      assert.equal(hit.searchParams.get('state'), auth.state);
      assert.equal(hit.searchParams.get('code'), null, 'no code');
      // The library reads the same answer as the refusal it is.
      await assert.rejects(
        client.authorizationCodeGrant(app.config, hit, { pkceCodeVerifier: auth.pkceCodeVerifier, expectedState: auth.state }),
        (e) => e.error === 'access_denied',
      );
    });
  });
}
