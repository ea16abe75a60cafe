// Which cell serves whom (issue 32 item 4, docs/multi-region.md §14), with two real `ciam serve`
// cells that name each other (`--cell global|cn --other-cell URL`) and real Chromium, in both
// languages: the header names the service and links the other's same page (keyboard reachable,
// axe with every rule); a phone's sign-up on the global cell is sent to the mainland cell with
// its link; a failed sign-in shows the other service's link alike for an account of the other
// cell and for a wrong password here. Then, without a browser, the two issuers (docs/partners.md
// "Two cells, two issuers"): different issuers and keys, a client of one unknown to the other,
// and one cell's ID token does not verify with the other's keys.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as client from 'openid-client';
import {
  apiCall, axeEveryRule, createAccount, freePort, launchBrowser, LOCALES, missing, requirements, ROOT, setStorage, startServer, uniqueMail,
} from './harness.mjs';

const skip = requirements();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const ctx = { global: null, cn: null, browser: null };
const NAME = { global: 'cell.global', cn: 'cell.cn' };

before(async () => {
  if (skip) return;
  const m = missing();
  if (m.length) throw new Error(`e2e: missing ${m.join('; ')}`);
  const [g, c] = [await freePort(), await freePort()];
  const origin = (p) => `http://127.0.0.1:${p}`;
  ctx.global = await startServer({ port: g, args: ['--cell', 'global', '--other-cell', origin(c)] });
  ctx.cn = await startServer({ port: c, args: ['--cell', 'cn', '--other-cell', origin(g)] });
  ctx.browser = await launchBrowser();
});

after(async () => {
  await ctx.browser?.close();
  await ctx.global?.stop();
  await ctx.cn?.stop();
});

/** Tab until `selector` has the focus (fails after 40 presses). */
async function tabTo(page, selector) {
  for (let i = 0; i < 40; i++) {
    if (await page.evaluate((s) => !!document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} is not reached with Tab`);
}

async function open(server, L, path) {
  const page = await ctx.browser.page();
  // The language chosen on both (each origin keeps its own choice: a visitor who never chose one
  // on the other cell gets the browser's there, docs/multi-region.md §14).
  for (const s of [ctx.global, ctx.cn]) await setStorage(page, s.base, { umi_locale: L });
  await page.goto(`${server.base}${path}`);
  return page;
}

async function noViolations(page, label) {
  assert.deepEqual(await axeEveryRule(page), [], `axe, every rule: ${label}`);
}

for (const L of LOCALES) {
  const t = messages[L];
  describe(`the cells as users see them (${L})`, { skip }, () => {
    for (const [page_, form] of [['signin', 'signin-password'], ['register', 'register']]) {
      it(`${page_}: each cell names itself and links the other's same page, by keyboard`, async () => {
        for (const [here, other] of [['global', 'cn'], ['cn', 'global']]) {
          const path = `/${L}/passport/${page_}`;
          const page = await open(ctx[here], L, path);
          await page.locator(`form[data-testid="${form}"]`).waitFor();
          assert.equal(await page.locator('[data-testid="cell-here"]').textContent(), t[NAME[here]]);
          const link = page.locator('[data-testid="cell-other"]');
          assert.equal(await link.textContent(), t[NAME[other]]);
          assert.equal(await link.getAttribute('href'), `${ctx[other].base}${path}`);
          await noViolations(page, `${page_} on ${here} (${L})`);
          await tabTo(page, '[data-testid="cell-other"]');
          await page.keyboard.press('Enter');
          await page.waitForURL(`${ctx[other].base}${path}`);
          await page.locator(`form[data-testid="${form}"]`).waitFor();
          assert.equal(await page.locator('[data-testid="cell-here"]').textContent(), t[NAME[other]]);
        }
      });
    }

    it('a mainland phone signing up on the global cell is sent to the mainland service, before any text', async () => {
      const page = await open(ctx.global, L, `/${L}/passport/register`);
      const form = page.locator('form[data-testid="register"]');
      await form.locator('[name="account"]').fill('13900139000');
      await form.locator('[data-testid="send-code"]').click();
      // Said at the account field, with the link under it.
      await form.locator('.field-error', { hasText: t['error.PHONE_MAINLAND_SERVICE_ONLY'] }).waitFor();
      assert.equal(await form.locator('[name="account"]').getAttribute('aria-invalid'), 'true');
      const hint = page.locator('[data-testid="cell-hint"]');
      assert.equal(await hint.textContent(), t['cell.signUpThere'].replace('{other}', t['cell.cn']));
      assert.equal(await hint.getAttribute('href'), `${ctx.cn.base}/${L}/passport/register`);
      assert.deepEqual((await ctx.global.outbox()).filter((e) => String(e.to).includes('13900139000')), [], 'no text was sent');
      await noViolations(page, `the +86 answer (${L})`);
      await tabTo(page, '[data-testid="cell-hint"]');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${ctx.cn.base}/${L}/passport/register`);
    });

    it('a failed sign-in shows the other service\'s link, the same for an account of the other cell and a wrong password here', async () => {
      const there = await createAccount(ctx.cn, { account: uniqueMail(`cn-${L}`) });
      const here = await createAccount(ctx.global, { account: uniqueMail(`global-${L}`) });
      const seen = [];
      for (const [account, password] of [[there.account, there.password], [here.account, 'Wrong-Passw0rd!']]) {
        const page = await open(ctx.global, L, `/${L}/passport/signin`);
        const form = page.locator('form[data-testid="signin-password"]');
        await form.locator('[name="account"]').fill(account);
        await form.locator('[name="password"]').fill(password);
        await form.locator('button[type="submit"]').click();
        await page.locator('[data-testid="form-alert"]', { hasText: t['error.PASSWORD_ERROR'] }).waitFor();
        const hint = page.locator('[data-testid="cell-hint"]');
        seen.push([await page.locator('[data-testid="form-alert"]').textContent(), await hint.getAttribute('href')]);
        assert.equal(await hint.textContent(), t['cell.signInThere'].replaceAll('{other}', t['cell.cn']));
        await noViolations(page, `the sign-in hint (${L})`);
      }
      assert.deepEqual(seen[0], seen[1], 'an account of the other cell and a wrong password here look alike');
      assert.equal(seen[0][1], `${ctx.cn.base}/${L}/passport/signin`);
    });
  });
}

describe('two cells, two issuers (docs/partners.md)', { skip }, () => {
  it('each cell is its own provider: its issuer, its keys, its clients; a token of one does not verify at the other', async () => {
    const issuer = (s) => `${s.base}/ciam/v1/oidc`;
    const [g, c] = await Promise.all([ctx.global, ctx.cn].map((s) => fetch(`${issuer(s)}/.well-known/openid-configuration`).then((r) => r.json())));
    assert.equal(g.issuer, issuer(ctx.global));
    assert.equal(c.issuer, issuer(ctx.cn));
    assert.notEqual(g.issuer, c.issuer);
    const kids = async (s) => (await (await fetch(`${issuer(s)}/jwks`)).json()).keys.map((k) => k.kid);
    const [gk, ck] = [await kids(ctx.global), await kids(ctx.cn)];
    assert.deepEqual(gk.filter((k) => ck.includes(k)), [], 'no key in common');

    // A partner registered in the mainland cell, and a user of that cell.
    const redirectUri = `${ctx.cn.base}/cb`;
    const made = ctx.cn.registerApp({ name: { 'zh-CN': '两个发行方', 'en-US': 'Two issuers' }, serviceUrls: [redirectUri], scopes: ['nickname'] });
    const user = await createAccount(ctx.cn, { account: uniqueMail('issuers') });
    const config = await client.discovery(new URL(issuer(ctx.cn)), made.app.appId, made.appSecret, undefined, { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: 'openid nickname', state, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const id = new URL(res.headers.get('location'), ctx.cn.base).searchParams.get('oidcRequest');
    const allow = await apiCall(ctx.cn.base, 'POST', `/oidc/requests/${id}`, {}, user.token);
    assert.equal(allow.status, 200, JSON.stringify(allow.json));
    const tokens = await client.authorizationCodeGrant(config, new URL(allow.json.redirect), { pkceCodeVerifier: verifier, expectedState: state });
    const idToken = tokens.id_token;
    assert.equal(decodeJwt(idToken).iss, issuer(ctx.cn));

    // It verifies with its own cell's keys, never with the other's.
    await jwtVerify(idToken, createRemoteJWKSet(new URL(`${issuer(ctx.cn)}/jwks`)), { issuer: issuer(ctx.cn), audience: made.app.appId });
    await assert.rejects(jwtVerify(idToken, createRemoteJWKSet(new URL(`${issuer(ctx.global)}/jwks`))), 'the global cell\'s keys do not verify it');
    // The client is unknown to the other cell: its authorization endpoint refuses it.
    const elsewhere = new URL(url.href.replace(issuer(ctx.cn), issuer(ctx.global)));
    const refused = await fetch(elsewhere, { redirect: 'manual' });
    assert.equal(refused.status, 400, 'no consent request for a client the global cell does not hold');
    const body = await refused.json();
    assert.deepEqual([body.reason, body.field], ['INVALID_PARAMETER', 'client_id']);
    // And its token endpoint does not know the client either.
    const token = await fetch(`${issuer(ctx.global)}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: redirectUri, client_id: made.app.appId, client_secret: made.appSecret, code_verifier: verifier }),
    });
    const answer = await token.text();
    assert.equal(token.status, 401, answer);
    assert.equal(JSON.parse(answer).error, 'invalid_client');
  });
});
