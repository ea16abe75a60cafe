// OpenID Connect RP-Initiated Logout 1.0 end to end (issue 23), in both languages, against a
// real `ciam serve` in real Chromium, with `openid-client` (v6) as the relying party: it signs
// the user in through the code flow (the SPA's sign-in and consent screens), then builds the
// logout URL with `buildEndSessionUrl` (the discovery's end_session_endpoint) and the browser
// follows it. With the id_token_hint the session ends at once and the browser lands on the
// registered post_logout_redirect_uri with the state; without one, Ciam's page asks "sign out of
// Ciam?" first; an unregistered post_logout_redirect_uri is refused on Ciam's page and never
// followed. After each end the old session token is refused by the server. Both pages pass axe.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as client from 'openid-client';
import { apiCall, createAccount, expectAccessible, LOCALES, ROOT, setStorage, storage, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Logout-2026!';
const NAMES = { 'zh-CN': '退出示例', 'en-US': 'Logout Example' };

// ---- the relying party: records every request it gets --------------------------------------------

const rp = { server: null, origin: '', hits: [] };
before(async () => {
  if (skip) return;
  rp.server = createServer((req, res) => {
    if (req.url !== '/favicon.ico') rp.hits.push(new URL(req.url, rp.origin));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>relying party</title><h1>RP</h1>');
  });
  await new Promise((r) => rp.server.listen(0, '127.0.0.1', r));
  rp.origin = `http://127.0.0.1:${rp.server.address().port}`;
});
after(() => rp.server?.close());

/** The request the RP got at `pathname` after hit number `from`, waiting up to 20 s. */
async function hitAfter(from, pathname) {
  for (let i = 0; i < 200; i++) {
    const hit = rp.hits.slice(from).find((u) => u.pathname === pathname);
    if (hit) return hit;
    await sleep(100);
  }
  throw new Error(`the relying party got no ${pathname}: ${rp.hits.map(String).join(', ')}`);
}

const app = { appId: '', config: null, redirectUri: '', bye: '' };
const issuer = () => `${ctx.server.base}/ciam/v1/oidc`;

async function registerApp() {
  if (app.appId) return;
  app.redirectUri = `${rp.origin}/cb`;
  app.bye = `${rp.origin}/bye`;
  const created = ctx.server.registerApp({
    name: NAMES,
    serviceUrls: [app.redirectUri],
    scopes: ['nickname'],
    postLogoutRedirectUris: [app.bye],
    backchannelLogoutUri: `${rp.origin}/backchannel`,
  });
  app.appId = created.app.appId;
  app.config = await client.discovery(new URL(issuer()), app.appId, created.appSecret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const meta = app.config.serverMetadata();
  assert.equal(meta.end_session_endpoint, `${issuer()}/logout`);
  assert.equal(meta.backchannel_logout_supported, true);
  assert.equal(meta.backchannel_logout_session_supported, true);
  assert.equal(meta.frontchannel_logout_supported, false);
}

/** Signs `user` in within the browser through the code flow; answers the verified id_token and
 * the browser's session token (the SPA's, read on the consent screen). */
async function signInThroughCodeFlow(page, L, user) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(app.config, {
    redirect_uri: app.redirectUri,
    scope: 'openid nickname',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ui_locales: L,
  });
  await setStorage(page, ctx.server.base, { umi_locale: L });
  const from = rp.hits.length;
  await page.goto(url.href);
  const form = page.locator('form[data-testid="signin-password"]');
  await form.waitFor({ timeout: 20_000 });
  await form.locator('[name="account"]').fill(user.account);
  await form.locator('[name="password"]').fill(PASSWORD);
  await form.locator('button[type="submit"]').click();
  const allow = page.locator('[data-testid="authorize-allow"]');
  await allow.waitFor({ timeout: 20_000 });
  const token = await storage(page, 'ciam_token');
  assert.ok(token, 'signed in in the browser');
  await allow.click();
  const callback = await hitAfter(from, '/cb');
  // The page's own navigation to the callback ends before the test navigates it elsewhere (a
  // goto meanwhile is interrupted by it).
  await page.waitForURL((u) => u.href.startsWith(`${rp.origin}/cb?`), { waitUntil: 'load', timeout: 20_000 });
  const tokens = await client.authorizationCodeGrant(app.config, callback, { pkceCodeVerifier, expectedState: state, expectedNonce: nonce });
  const claims = tokens.claims();
  assert.equal(claims.sub, user.id);
  assert.match(claims.sid, /^[0-9a-f]{32}$/, 'the id_token names the session (sid)');
  return { idToken: tokens.id_token, token };
}

async function newUser(tag) {
  const user = await createAccount(ctx.server, { account: uniqueMail(tag), password: PASSWORD });
  const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, user.token);
  assert.equal(info.status, 200);
  return { ...user, id: info.json.userId };
}

async function expectDead(token) {
  const res = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token);
  assert.equal(res.status, 401, 'the ended session is refused');
}

for (const L of LOCALES) {
  describe(`RP-Initiated Logout in the browser (${L})`, { skip }, () => {
    it('with the id_token_hint: signed out at once, back at the registered URI with the state', async () => {
      await registerApp();
      const user = await newUser(`oidc-logout-${L.toLowerCase()}`);
      const page = await ctx.browser.page();
      const { idToken, token } = await signInThroughCodeFlow(page, L, user);
      const state = client.randomState();
      const url = client.buildEndSessionUrl(app.config, { id_token_hint: idToken, post_logout_redirect_uri: app.bye, state, ui_locales: L });
      assert.equal(url.origin + url.pathname, `${issuer()}/logout`);
      const from = rp.hits.length;
      await page.goto(url.href);
      const bye = await hitAfter(from, '/bye');
      assert.equal(bye.searchParams.get('state'), state);
      await page.waitForURL((u) => u.href.startsWith(`${app.bye}?`), { timeout: 20_000 });
      await expectDead(token);
      // Back on Ciam, the browser is signed out.
      await page.goto(`${ctx.server.base}/${L}/personal/info`);
      await page.waitForURL((u) => u.pathname === `/${L}/passport/signin`, { timeout: 20_000 });
      assert.equal(await storage(page, 'ciam_token'), null);
    });

    it('without a hint: Ciam asks "sign out of Ciam?" first, then goes back', async () => {
      const user = await newUser(`oidc-logout-ask-${L.toLowerCase()}`);
      const page = await ctx.browser.page();
      const { token } = await signInThroughCodeFlow(page, L, user);
      const state = client.randomState();
      const url = client.buildEndSessionUrl(app.config, { post_logout_redirect_uri: app.bye, state, ui_locales: L });
      assert.equal(url.searchParams.get('client_id'), app.appId, 'the library names the client');
      await page.goto(url.href);
      const ask = page.locator('[data-testid="end-session-ask"]');
      await ask.waitFor({ timeout: 20_000 });
      assert.equal(where(page).split('?')[0], `/${L}/passport/end-session`);
      const t = messages[L];
      assert.equal((await ask.locator('h1').textContent()).trim(), t['signout.endSession.ask']);
      assert.ok((await ask.textContent()).includes(NAMES[L]), 'names the app');
      await expectAccessible(page, `end-session confirmation (${L})`);
      // Nothing has ended yet.
      assert.equal((await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token)).status, 200);
      const from = rp.hits.length;
      await page.locator('[data-testid="end-session-confirm"]').click();
      const bye = await hitAfter(from, '/bye');
      assert.equal(bye.searchParams.get('state'), state);
      await expectDead(token);
    });

    it('an unregistered post_logout_redirect_uri is refused on Ciam and never followed', async () => {
      const user = await newUser(`oidc-logout-evil-${L.toLowerCase()}`);
      const page = await ctx.browser.page();
      const { idToken, token } = await signInThroughCodeFlow(page, L, user);
      const url = client.buildEndSessionUrl(app.config, { id_token_hint: idToken, post_logout_redirect_uri: `${rp.origin}/evil`, ui_locales: L });
      const from = rp.hits.length;
      await page.goto(url.href);
      const error = page.locator('[data-testid="end-session-error"]');
      await error.waitFor({ timeout: 20_000 });
      assert.equal((await error.locator('h1').textContent()).trim(), messages[L]['signout.endSession.failed']);
      await expectAccessible(page, `end-session refusal (${L})`);
      await sleep(500);
      assert.deepEqual(rp.hits.slice(from), [], 'the relying party was not called');
      assert.equal(new URL(page.url()).origin, ctx.server.base);
      assert.equal((await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token)).status, 200, 'still signed in');
    });
  });
}
