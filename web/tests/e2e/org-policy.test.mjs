// The organization's policy when an app asks for the organization (docs/oidc.md "Organizations")
// against a real `ciam serve`, in real Chromium and in both languages: an organization whose
// operator turned `mfaRequired` on, and a member with the authenticator app whose session signed
// in by password alone (before the authenticator was turned on: a password sign-in after that
// asks for the code at sign-in already). `openid-client` asks for the organization; the member
// meets the step-up page (axe with every rule), enters the authenticator's code, Allows, and the
// library redeems a code whose id_token carries `org_id`, with `otp` and `mfa` in its `amr`. The
// organization is made with `ciam admin org-create`, its setting changed through the console's
// API (`PATCH /admin/organizations/{orgId}`) by an operator with two-factor on.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { apiCall, axeEveryRule, BIN, consoleUser, createAccount, enableTotp, freshProof, LOCALES, ROOT, setStorage, suite, totp, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PORTAL = { 'zh-CN': '合规门户', 'en-US': 'Compliance Portal' };
const ORG = { en: 'Strict Co', zh: '严格公司' };

const rp = { server: null, origin: '' };
before(async () => {
  if (skip) return;
  rp.server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>relying party</title>'));
  await new Promise((r) => rp.server.listen(0, '127.0.0.1', r));
  rp.origin = `http://127.0.0.1:${rp.server.address().port}`;
});
after(() => rp.server?.close());

const app = { config: null, redirectUri: '' };
let operator = null;

async function setUp() {
  if (app.config) return;
  app.redirectUri = `${rp.origin}/cb-policy`;
  const made = ctx.server.registerApp({ name: PORTAL, serviceUrls: [app.redirectUri], scopes: ['nickname'] });
  app.config = await client.discovery(new URL(`${ctx.server.base}/ciam/v1/oidc`), made.app.appId, made.appSecret, undefined, { execute: [client.allowInsecureRequests] });
  operator = await consoleUser(ctx.server, 'operator', 'org-policy');
}

/** An organization owned by `owner` (a mail) that requires a second factor: its id. */
async function strictOrg(owner) {
  const r = spawnSync(BIN, ['admin', 'org-create', owner, '--name-en', ORG.en, '--name-zh', ORG.zh, '--reason', 'e2e: policy', '--data', ctx.server.data], { encoding: 'utf8' });
  assert.equal(r.status, 0, `ciam admin org-create: ${r.stderr}${r.stdout}`);
  const orgId = r.stdout.trim();
  const path = `/admin/organizations/${orgId}`;
  const body = { reason: 'e2e: members must use a second factor', mfaRequired: true };
  let res = await apiCall(ctx.server.base, 'PATCH', path, body, operator.token);
  if (res.json?.reason === 'REAUTH_REQUIRED') {
    await freshProof(ctx.server, operator);
    res = await apiCall(ctx.server.base, 'PATCH', path, body, operator.token);
  }
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.equal(res.json.settings.mfaRequired, true);
  return orgId;
}

async function authorization(L) {
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
  });
  return { url, pkceCodeVerifier, state, nonce };
}

/** The authenticator's code of a step after `step`, waiting for the clock when it must. */
async function nextCode(key, step) {
  const next = Math.max(step + 1, Math.floor(Date.now() / 30_000));
  while (next > Math.floor(Date.now() / 30_000) + 1) await new Promise((r) => setTimeout(r, 500));
  return totp(key, next);
}

for (const L of LOCALES) {
  describe(`an organization that requires a second factor (${L})`, { skip }, () => {
    const t = messages[L];
    const fill = (s, values) => Object.entries(values).reduce((x, [k, v]) => x.replaceAll(`{${k}}`, v), s);

    it('a password session is asked for the code, then the app gets org_id', async () => {
      await setUp();
      const member = await createAccount(ctx.server, { account: uniqueMail(`org-policy-${L.toLowerCase()}`) });
      const orgId = await strictOrg(member.account);
      const { key, step } = await enableTotp(ctx.server, member);
      const page = await ctx.browser.page();
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: member.token, lastActionTime: String(Date.now()) });
      const auth = await authorization(L);
      await page.goto(auth.url.href);
      const policy = page.locator('[data-testid="org-policy"][data-need="stepUp"]');
      await policy.waitFor({ timeout: 20_000 });
      const org = L === 'zh-CN' ? ORG.zh : ORG.en;
      assert.equal((await policy.locator('h1').textContent()).trim(), fill(t['authorize.policy.stepUpTitle'], { org }));
      const field = policy.locator('[data-testid="org-policy-stepup"] input[name="code"]');
      await field.waitFor({ timeout: 20_000 });
      assert.deepEqual(await axeEveryRule(page), [], `axe (every rule) on the step-up (${L})`);
      await field.fill(await nextCode(key, step));
      await policy.locator('[data-testid="org-policy-verify"]').click();
      // A first visit: the consent screen follows, naming the organization; Allow.
      const shared = page.locator('[data-testid="authorize-org"]');
      await shared.waitFor({ timeout: 20_000 });
      assert.equal((await shared.textContent()).trim(), fill(t['authorize.org.shared'], { app: PORTAL[L], org }));
      await page.locator('[data-testid="authorize-allow"]').click({ timeout: 20_000 });
      await page.waitForURL((u) => u.href.startsWith(`${app.redirectUri}?`), { timeout: 20_000 });
      const tokens = await client.authorizationCodeGrant(app.config, new URL(page.url()), {
        pkceCodeVerifier: auth.pkceCodeVerifier,
        expectedState: auth.state,
        expectedNonce: auth.nonce,
      });
      const claims = tokens.claims();
      assert.equal(claims.org_id, orgId);
      assert.deepEqual(claims.org_roles, ['owner']);
      assert.ok(claims.amr.includes('otp') && claims.amr.includes('mfa'), `amr: ${JSON.stringify(claims.amr)}`);
    });
  });
}
