// The phone proof of a person an organization's DingTalk connection vouches for (issue 35;
// docs/organizations-connections.md §0.6), in real Chromium against `ciam serve` and `ciam-fakes`
// (DingTalk's pages and API; the deployment's DingTalk hosts point at the fake). An organization verifies its domain (`ciam admin org-sign-in
// --verify`, whose placeholder connection is deleted), makes a DingTalk connection pinned to the
// fake's corp through "My company"'s API, tests it at the fake, turns it on and routes the domain
// to it. Then, in each locale: a colleague types the company mail, presses "Continue with
// <company>", approves at DingTalk (whose mail is never a proof) and comes back to the phone
// proof, which names the company and its platform ("Acme's DingTalk vouched for you; prove your
// phone to finish"); axe with every rule on that screen (both widths, light and dark); the new
// number goes on to the sign-up, the account is made and signed in, and it is a member of the
// organization (just in time `join`); the next sign-in goes straight in by the link.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { flowKit, startFakes } from './fakes.mjs';
import { apiCall, BIN, createAccount, LOCALES, ROOT, settled, storage, suite, uniqueMail } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const fakes = await startFakes();
// The deployment's DingTalk hosts (the fake's): `ciam serve` reads them with the built-in
// provider's app, which the connection's sign-in does not use.
const env = {
  CIAM_DINGTALK_CLIENT_ID: 'dingfakeclient00001',
  CIAM_DINGTALK_CLIENT_SECRET: 'fake-dingtalk-client-secret',
  CIAM_DINGTALK_LOGIN_BASE: fakes.page('dingtalk'),
  CIAM_DINGTALK_API_BASE: fakes.api('dingtalk'),
};
const { skip: missing, ctx } = suite({ server: { env } });
const skip = missing || fakes.skip;
const { everyWay, newPhone, provePhone, say, signInPage, unique } = flowKit(ctx);
// The fake's registered app and corp (functions/fakes/src/dingtalk.rs).
const CLIENT_ID = 'dingfakeclient00001';
const CLIENT_SECRET = 'fake-dingtalk-client-secret';
const CORP_ID = 'dingfakecorp00001';

/** `ciam admin <args>` on the test server's data folder; answers what it printed. */
function admin(...args) {
  const r = spawnSync(BIN, ['admin', ...args, '--data', ctx.server.data], { encoding: 'utf8' });
  assert.equal(r.status, 0, `ciam admin ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

const api = (method, path, body, token) => apiCall(ctx.server.base, method, path, body, token);

/** The browser at the fake's address `url` approves: where the fake sends it back (the callback). */
async function approveAt(url) {
  const res = await fetch(url, { redirect: 'manual' }).catch((e) => assert.fail(`${url}: ${e.cause ?? e}`));
  assert.equal(res.status, 302, `${url}: ${res.status}`);
  return res.headers.get('location');
}

/** An organization with `domain` verified and routed to a DingTalk connection (jit join), on. */
async function company(names, domain) {
  const boss = await createAccount(ctx.server, { account: uniqueMail('phone-proof-boss') });
  const orgId = admin('org-create', boss.account, '--name-en', names.en, '--name-zh', names.zh, '--reason', 'e2e: phone proof');
  const placeholder = admin('org-sign-in', domain, '--org', orgId, '--name-en', 'Placeholder', '--verify', '--reason', 'e2e: verify the domain');
  assert.equal((await api('DELETE', `/org/${orgId}/connections/${placeholder}`, undefined, boss.token)).status, 200);
  const made = await api(
    'POST',
    `/org/${orgId}/connections`,
    { protocol: 'dingtalk', nameEn: names.en, nameZh: names.zh, settings: { clientId: CLIENT_ID, corpId: CORP_ID }, secret: CLIENT_SECRET, jit: 'join' },
    boss.token,
  );
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const path = `/org/${orgId}/connections/${made.json.connId}`;
  await fakes.control('dingtalk', 'next-user', { unionid: unique('tester'), userid: 'tester' });
  const test = await api('POST', `${path}/test`, {}, boss.token);
  assert.equal(test.status, 200, JSON.stringify(test.json));
  const page = await fetch(await approveAt(test.json.url), { redirect: 'manual' });
  assert.equal(page.status, 200, 'the test page');
  const on = await api('PATCH', path, { on: true }, boss.token);
  assert.equal(on.status, 200, JSON.stringify(on.json));
  const routed = await api('PUT', `/org/${orgId}/domains/${domain}/sign-in`, { connId: made.json.connId, required: false }, boss.token);
  assert.equal(routed.status, 200, JSON.stringify(routed.json));
  return { orgId, boss };
}

for (const L of LOCALES) {
  const t = messages[L];
  describe(`the phone proof after a company's DingTalk (${L})`, { skip }, () => {
    it('names the company, proves a new number, signs up as a member; the next sign-in goes straight in', async () => {
      const tag = `${L.toLowerCase()}-${Date.now().toString(36)}`;
      const domain = `ding-${tag}.example`;
      const names = { en: `Acme ${tag}`, zh: `爱克美${tag}` };
      const { orgId } = await company(names, domain);
      const person = { unionid: unique('colleague'), userid: unique('li') };
      await fakes.control('dingtalk', 'next-user', person);

      const page = await signInPage(L, { query: '?from=e2e' });
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(`li-${tag}@${domain}`);
      const button = page.locator('[data-testid="org-continue"]');
      await button.waitFor({ timeout: 10_000 });
      await button.click();
      const phoneStep = page.locator('[data-testid="federation-phone"]');
      await phoneStep.waitFor({ timeout: 15_000 });
      const intro = await page.locator('[data-testid="federation-phone-intro"]').textContent();
      const name = L === 'zh-CN' ? names.zh : names.en;
      assert.equal(intro, say(t['federation.orgPhoneIntro'], { company: name, platform: t['federation.dingtalk'] }), 'the proof names the company and its platform');
      assert.ok(!new URL(page.url()).searchParams.has('orgPending'), 'the pending token left the address');
      await everyWay(page, `the phone proof after a company's DingTalk (${L})`);

      await provePhone(page, newPhone());
      const signUp = page.locator('[data-testid="federation-signup"]');
      await signUp.waitFor();
      const userName = unique('ding');
      await signUp.locator('input[name="userName"]').fill(userName);
      await signUp.locator('input[name="company"]').fill('Acme Ltd');
      await signUp.locator('input[name="acceptTerms"]').check();
      await signUp.locator('button[type="submit"]').click();
      await page.waitForURL(`**/${L}/personal/info?from=e2e`);
      const token = await storage(page, 'ciam_token');
      const me = await api('GET', '/auth/info', undefined, token);
      assert.equal(me.json.userName, userName);
      const mine = await api('GET', '/org/mine', undefined, token);
      assert.equal(mine.status, 200, JSON.stringify(mine.json));
      assert.ok(JSON.stringify(mine.json).includes(orgId), `a member of the organization (just in time join): ${JSON.stringify(mine.json)}`);

      // The same person again: the link, no proof.
      const again = await signInPage(L);
      await again.locator('form[data-testid="signin-password"] [name="account"]').fill(`li-${tag}@${domain}`);
      await again.locator('[data-testid="org-continue"]').click();
      await again.waitForURL(`**/${L}/personal/info`, { timeout: 15_000 });
      await settled(again);
      const second = await api('GET', '/auth/info', undefined, await storage(again, 'ciam_token'));
      assert.equal(second.json.userName, userName);
    });
  });
}
