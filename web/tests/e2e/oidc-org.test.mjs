// The organization in tokens (issue 35 item 5, docs/oidc.md "Organizations") against a real
// `ciam serve`: `openid-client` asks with the `organization` scope and parameter and finds
// `org_id` / `org_roles` in the verified id_token and in userinfo; then, in real Chromium and in
// both languages, a person in two organizations meets the picker (keyboard only, axe with every
// rule), picks the second and the library redeems the code that carries it; a person without an
// organization meets the refusal of an app that requires one (axe with every rule), and "Back to
// the app" brings the relying party error=access_denied, never a code. Organizations are made with
// `ciam admin org-create`, apps with `ciam admin apps create`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { apiCall, axeEveryRule, BIN, createAccount, LOCALES, ROOT, setStorage, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PORTAL = { 'zh-CN': '组织门户', 'en-US': 'Org Portal' };
const MEMBERS = { 'zh-CN': '成员专区', 'en-US': 'Members Only' };
const ORGS = [
  { en: 'Acme', zh: '艾克姆' },
  { en: 'Beta', zh: '贝塔' },
];

const apps = { portal: null, members: null };

// The relying party's callback: a page that stays put (the browser's URL is the answer).
const rp = { server: null, origin: '' };
before(async () => {
  if (skip) return;
  rp.server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>relying party</title>'));
  await new Promise((r) => rp.server.listen(0, '127.0.0.1', r));
  rp.origin = `http://127.0.0.1:${rp.server.address().port}`;
});
after(() => rp.server?.close());
const issuer = () => `${ctx.server.base}/ciam/v1/oidc`;

/** `ciam admin org-create`: an active organization owned by `owner` (a mail); its id. */
function orgCreate(owner, { en, zh }) {
  const r = spawnSync(BIN, ['admin', 'org-create', owner, '--name-en', en, '--name-zh', zh, '--reason', 'e2e: organization', '--data', ctx.server.data], { encoding: 'utf8' });
  assert.equal(r.status, 0, `ciam admin org-create: ${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

async function register(names, tag, more = {}) {
  const redirectUri = `${rp.origin}/cb-${tag}`;
  const made = ctx.server.registerApp({ name: names, serviceUrls: [redirectUri], scopes: ['nickname'], ...more });
  const config = await client.discovery(new URL(issuer()), made.app.appId, made.appSecret, undefined, { execute: [client.allowInsecureRequests] });
  return { id: made.app.appId, redirectUri, config };
}

async function setUp() {
  if (apps.portal) return;
  apps.portal = await register(PORTAL, 'portal');
  apps.members = await register(MEMBERS, 'members', { organization: 'required' });
}

/** A person (with their user id); `orgs`: how many organizations they own (Acme, Beta). */
async function person(tag, orgs) {
  const user = await createAccount(ctx.server, { account: uniqueMail(tag) });
  const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, user.token);
  assert.equal(info.status, 200, JSON.stringify(info.json));
  return { ...user, id: info.json.userId, orgs: ORGS.slice(0, orgs).map((o) => orgCreate(user.account, o)) };
}

async function authorization(app, L, extra = {}) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(app.config, {
    redirect_uri: app.redirectUri,
    scope: 'openid nickname organization',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ui_locales: L,
    ...extra,
  });
  return { url, pkceCodeVerifier, state, nonce };
}

/** The library redeems `callback`: the verified claims and userinfo. */
async function redeem(app, callback, auth) {
  const tokens = await client.authorizationCodeGrant(app.config, callback, {
    pkceCodeVerifier: auth.pkceCodeVerifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
  const claims = tokens.claims();
  const info = await client.fetchUserInfo(app.config, tokens.access_token, claims.sub);
  return { tokens, claims, info };
}

describe('openid-client gets org_id and org_roles', { skip }, () => {
  it('discovery names the scope and the claims', async () => {
    await setUp();
    const meta = apps.portal.config.serverMetadata();
    assert.ok(meta.scopes_supported.includes('organization'));
    assert.ok(meta.claims_supported.includes('org_id') && meta.claims_supported.includes('org_roles'));
  });

  it('the parameter names the organization; without it the person picks (here through the API)', async () => {
    const ann = await person('org-api', 2);
    for (const [extra, body, expected] of [
      [{ organization: ann.orgs[0] }, {}, ann.orgs[0]],
      [{}, { organization: ann.orgs[1] }, ann.orgs[1]],
    ]) {
      const auth = await authorization(apps.portal, 'en-US', extra);
      const res = await fetch(auth.url, { redirect: 'manual' });
      assert.equal(res.status, 302, await res.text());
      const id = new URL(res.headers.get('location'), ctx.server.base).searchParams.get('oidcRequest');
      const view = await apiCall(ctx.server.base, 'GET', `/oidc/requests/${id}`, undefined, ann.token);
      assert.equal(view.status, 200, JSON.stringify(view.json));
      assert.equal(view.json.organization.choices.length, extra.organization ? 1 : 2);
      const allow = await apiCall(ctx.server.base, 'POST', `/oidc/requests/${id}`, body, ann.token);
      assert.equal(allow.status, 200, JSON.stringify(allow.json));
      const { tokens, claims, info } = await redeem(apps.portal, new URL(allow.json.redirect), auth);
      assert.equal(tokens.scope, 'openid nickname organization');
      assert.equal(claims.sub, ann.id);
      assert.equal(claims.org_id, expected);
      assert.deepEqual(claims.org_roles, ['owner']);
      assert.equal(info.org_id, expected);
      assert.deepEqual(info.org_roles, ['owner']);
    }
  });
});

for (const L of LOCALES) {
  describe(`the organization step in the browser (${L})`, { skip }, () => {
    const t = messages[L];
    const fill = (s, values) => Object.entries(values).reduce((x, [k, v]) => x.replaceAll(`{${k}}`, v), s);

    it('two organizations: the picker, by keyboard; the code carries the one picked', async () => {
      await setUp();
      const ann = await person(`org-pick-${L.toLowerCase()}`, 2);
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: ann.token, lastActionTime: String(Date.now()) });
      const auth = await authorization(apps.portal, L);
      await page.goto(auth.url.href);
      const picker = page.locator('[data-testid="org-picker"]');
      await picker.waitFor({ timeout: 20_000 });
      assert.match(where(page), new RegExp(`^/${L}/passport/authorize\\?oidcRequest=`));
      assert.equal((await picker.locator('h1').textContent()).trim(), t['authorize.org.pickTitle']);
      const owner = t['authorize.org.role.owner'];
      const names = ORGS.map((o) => fill(t['authorize.org.choice'], { name: L === 'zh-CN' ? o.zh : o.en, role: owner }));
      assert.deepEqual((await picker.locator('label.radio').allTextContents()).map((s) => s.trim()), names);
      assert.deepEqual(await axeEveryRule(page), [], `axe (every rule) on the picker (${L})`);
      // The heading has the focus: Tab to the choices, the arrow to the second, Tab to Cancel and to
      // Continue, Enter.
      await page.keyboard.press('Tab');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.locator('[data-testid="org-choice"]:checked').getAttribute('value'), ann.orgs[1]);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'org-next');
      await page.keyboard.press('Enter');
      // A first visit: the consent screen follows, saying which organization the app will see; Allow.
      const shared = page.locator('[data-testid="authorize-org"]');
      await shared.waitFor({ timeout: 20_000 });
      assert.equal((await shared.textContent()).trim(), fill(t['authorize.org.shared'], { app: PORTAL[L], org: L === 'zh-CN' ? ORGS[1].zh : ORGS[1].en }));
      assert.deepEqual(await axeEveryRule(page), [], `axe (every rule) on the consent with the organization (${L})`);
      await page.locator('[data-testid="authorize-allow"]').click({ timeout: 20_000 });
      await page.waitForURL((u) => u.href.startsWith(`${apps.portal.redirectUri}?`), { timeout: 20_000 });
      const { claims, info } = await redeem(apps.portal, new URL(page.url()), auth);
      assert.equal(claims.org_id, ann.orgs[1]);
      assert.deepEqual(claims.org_roles, ['owner']);
      assert.equal(info.org_id, ann.orgs[1]);
    });

    it('an app that requires an organization: the refusal, and back to the app without a code', async () => {
      const bob = await person(`org-none-${L.toLowerCase()}`, 0);
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: bob.token, lastActionTime: String(Date.now()) });
      const auth = await authorization(apps.members, L);
      await page.goto(auth.url.href);
      const refused = page.locator('[data-testid="org-refused"]');
      await refused.waitFor({ timeout: 20_000 });
      assert.equal((await refused.locator('h1').textContent()).trim(), fill(t['authorize.org.refusedTitle'], { app: MEMBERS[L] }));
      assert.equal((await page.locator('[role="alert"][data-testid="org-refused-why"]').textContent()).trim(), fill(t['authorize.org.required'], { app: MEMBERS[L] }));
      assert.deepEqual(await axeEveryRule(page), [], `axe (every rule) on the refusal (${L})`);
      await page.locator('[data-testid="org-back"]').click();
      await page.waitForURL((u) => u.href.startsWith(`${apps.members.redirectUri}?`), { timeout: 20_000 });
      const back = new URL(page.url());
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), auth.state);
      assert.equal(back.searchParams.get('code'), null);
    });
  });
}
