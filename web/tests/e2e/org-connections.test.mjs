// An organization's own sign-in connection set up in its screens (issue 35 items 4 and 6), both
// languages, real `ciam serve`, Chromium and a real OpenID Connect provider (`oidc-provider`
// plays the company's IdP, idp.mjs): in "My company" its owner adds an OpenID Connect connection by keyboard
// alone (the redirect URI shown is the one registered at the IdP), tests it (the IdP's sign-in in
// a new tab, whose page says the test passed), turns it on, routes the verified domain to it and
// deletes the connection that verified the domain; axe with every rule (experimental included),
// light and dark, desktop and phone, on the card; then adds a WeCom one (a malformed CorpID
// refused by the server at its field, the corp shown once added). An operator sees it on the console's
// organization page (axe there too). Then a colleague types their mail at that domain on the
// sign-in page, continues with the company, signs in at the IdP and lands signed in, a member
// (just-in-time join).
//
// The domain is verified on the operator's word by `ciam admin org-sign-in --verify` (which also
// routes it to a connection of its own, the one the owner replaces and deletes here).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiCall, axeEveryRule, axeEveryWay, consoleUser, createAccount, isActive, launchBrowser, LOCALES, messagesByLocale, setStorage, settled, storage, suite, tabTo, uniqueMail, VIEWPORTS } from './harness.mjs';
import { signInAtIdpPage, startIdp } from './idp.mjs';

const messages = messagesByLocale();
const PASSWORD = 'Ciam-Conn-2026!';
const CLIENT_ID = 'ciam-company';
const CLIENT_SECRET = 'company-secret-of-the-e2e-test-0123456789';
const { skip, ctx } = suite();

let idp = null;
/** The company's IdP: whoever logs in is the mail they typed (verified). */
async function startProvider() {
  idp = await startIdp({
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${ctx.server.base}/ciam/v1/auth/org/callback`] }],
    accounts: (login) => ({ email: login, email_verified: true, name: login.split('@')[0] }),
  });
}

/** The IdP's login and consent pages, as `login`, until the browser leaves the IdP (at once when it remembers a session). */
const atIdp = (page, login) => signInAtIdpPage(page, idp.issuer, login, ctx.server.base);

let operator;

describe("an organization's own sign-in connection, set up in its screens", { skip }, () => {
  before(startProvider);
  after(() => idp?.stop());

  for (const L of LOCALES) {
    it(`an owner adds, tests, turns on and routes a connection; a colleague signs in through it and joins (${L})`, async () => {
      const t = messages[L];
      const tag = `${L.toLowerCase()}-${Date.now().toString(36)}`;
      const domain = `conn-${tag}.example`;
      const names = { en: `Conn ${L} SSO`, zh: `连接${L}登录` };
      const name = L === 'zh-CN' ? names.zh : names.en;
      operator ??= await consoleUser(ctx.server, 'operator', 'conn-e2e');
      const owner = await createAccount(ctx.server, { account: uniqueMail(`conn-owner-${L.toLowerCase()}`), password: PASSWORD });
      const orgId = ctx.server.admin('org-create', owner.account, '--name-en', `Conn ${L} Ltd`, '--name-zh', `连接公司${L}`, '--reason', 'e2e: connections');
      const bootstrap = ctx.server.admin('org-sign-in', domain, '--org', orgId, '--name-en', 'Bootstrap', '--verify', '--reason', 'e2e: verify the domain');

      const page = await ctx.browser.page();
      // No session at the IdP left by the other language's test: the test signs in as this one's tester.
      await page.context().clearCookies();
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: owner.token, lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/company`);
      const card = page.getByTestId('org-conns');
      await card.locator(`[data-testid="org-conn"][data-conn="${bootstrap}"][data-status="on"]`).waitFor();
      await settled(page);

      // Keyboard alone: "Add a connection", its fields, "Add connection".
      await page.locator('h1').first().focus();
      await tabTo(page, '[data-testid="org-conn-add"]', 120);
      await page.keyboard.press('Enter');
      const F = '[data-testid="org-conn-form"]';
      await page.waitForFunction((s) => document.activeElement?.matches(s), `${F} [name="nameZh"]`);
      await page.keyboard.type(names.zh);
      for (const [field, value] of [
        ['nameEn', names.en],
        ['issuer', idp.issuer],
        ['clientId', CLIENT_ID],
        ['secret', CLIENT_SECRET],
      ]) {
        await tabTo(page, `${F} [name="${field}"]`, 40);
        await page.keyboard.type(value);
      }
      await tabTo(page, `${F} [name="jit"]:checked`, 40);
      await page.keyboard.press('ArrowDown');
      assert.ok(await isActive(page, `${F} [name="jit"][value="join"]:checked`), 'the arrow chose join');
      // The redirect URI shown is the one the IdP registered.
      assert.equal(await page.locator(`${F} [data-testid="org-conn-redirect"]`).textContent(), `${ctx.server.base}/ciam/v1/auth/org/callback`);
      await tabTo(page, `${F} [data-testid="org-conn-save"]`, 40);
      await page.keyboard.press('Enter');
      const said = page.getByTestId('org-conns-said');
      await said.getByText(t['org.conn.created'].replace('{name}', name)).waitFor();
      const mine = card.locator('[data-testid="org-conn"]').filter({ hasText: name });
      await mine.waitFor();
      const connId = await mine.getAttribute('data-conn');
      assert.equal(await mine.getAttribute('data-status'), 'draft');
      assert.equal(await mine.getByTestId('org-conn-status').textContent(), t['org.conn.status.draft']);
      // Turning on an untested connection: refused, in the page's words.
      await mine.getByTestId('org-conn-on').click();
      await said.getByText(t['org.conn.notTested'].replace('{name}', name)).waitFor();

      // The test: the IdP's sign-in in a new tab, whose page says it passed.
      await mine.getByTestId('org-conn-test').click();
      const open = mine.getByTestId('org-conn-test-open');
      await open.waitFor();
      const [tab] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
      await atIdp(tab, `tester@${domain}`);
      await tab.waitForURL((u) => u.href.startsWith(`${ctx.server.base}/ciam/v1/auth/org/callback`));
      const result = await tab.locator('main').textContent();
      assert.ok(result.includes(L === 'zh-CN' ? '测试通过' : 'Test passed'), result);
      assert.ok(result.includes(`tester@${domain}`), result);
      await tab.close();
      await page.bringToFront();
      await mine.getByTestId('org-conn-test-check').click();
      await card.locator(`[data-testid="org-conn"][data-conn="${connId}"][data-status="tested"]`).waitFor();

      // On, then the domain routed to it; the bootstrap connection deleted after a confirmation.
      await mine.getByTestId('org-conn-on').click();
      await card.locator(`[data-testid="org-conn"][data-conn="${connId}"][data-status="on"]`).waitFor();
      await said.getByText(t['org.conn.turnedOn'].replace('{name}', name)).waitFor();
      const route = card.locator(`[data-testid="org-conn-route"][data-domain="${domain}"]`);
      await route.waitFor();
      await route.getByTestId('org-conn-route-select').selectOption(connId);
      await card.locator(`[data-testid="org-conn-route"][data-domain="${domain}"][data-conn="${connId}"]`).waitFor();
      await page.getByTestId('org-conn-routing-said').getByText(t['org.conn.routing.routed'].replace('{domain}', domain).replace('{name}', name)).waitFor();
      const boot = card.locator(`[data-testid="org-conn"][data-conn="${bootstrap}"]`);
      await boot.getByTestId('org-conn-remove').click();
      await page.getByTestId('org-conn-dialog').waitFor();
      await page.getByTestId('org-conn-confirm').click();
      await boot.waitFor({ state: 'detached' });
      await settled(page);
      await axeEveryWay(page, `My company with a connection on and a routed domain (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });

      // The API agrees.
      const got = await apiCall(ctx.server.base, 'GET', `/org/${orgId}/connections`, undefined, owner.token);
      assert.deepEqual(got.json.connections.map((c) => [c.connId, c.status, c.jit, c.hasSecret, c.settings.issuer]), [[connId, 'on', 'join', true, idp.issuer]]);
      const doms = await apiCall(ctx.server.base, 'GET', `/org/${orgId}/domains`, undefined, owner.token);
      assert.deepEqual(doms.json.domains.map((d) => [d.domain, d.signIn]), [[domain, { connId, required: false }]]);

      // A WeCom connection through the same form: the server's refusal of a malformed CorpID is
      // said at that field; corrected, it is added and the list shows its corp.
      await card.getByTestId('org-conn-add').click();
      const wecomForm = card.getByTestId('org-conn-form');
      await wecomForm.getByTestId('org-conn-protocol').selectOption('wecom');
      const corp = wecomForm.locator('[name="corpId"]');
      await wecomForm.locator('[name="nameEn"]').fill(`WeCom ${L}`);
      await corp.fill('ww 0123');
      await wecomForm.locator('[name="agentId"]').fill('1000002');
      await wecomForm.locator('[name="secret"]').fill('corp-secret-of-the-e2e-test');
      await wecomForm.getByTestId('org-conn-save').click();
      await wecomForm.locator('[name="corpId"][aria-invalid="true"]').waitFor();
      await corp.fill(`ww${tag.replace(/[^a-z0-9]/g, '')}`);
      await wecomForm.getByTestId('org-conn-save').click();
      await wecomForm.waitFor({ state: 'detached' });
      const all = await apiCall(ctx.server.base, 'GET', `/org/${orgId}/connections`, undefined, owner.token);
      const wecom = all.json.connections.find((c) => c.protocol === 'wecom');
      assert.deepEqual(wecom?.settings, { corpId: `ww${tag.replace(/[^a-z0-9]/g, '')}`, agentId: '1000002' });
      assert.equal(await card.locator(`[data-testid="org-conn"][data-conn="${wecom.connId}"] [data-testid="org-conn-pinned"]`).textContent(), wecom.settings.corpId);
      await page.close();

      // The operator sees it on the console's organization page.
      const op = await ctx.browser.page();
      await op.setViewportSize(VIEWPORTS[0]);
      await setStorage(op, ctx.server.base, { umi_locale: L, ciam_token: operator.token, lastActionTime: String(Date.now()) });
      await op.goto(`${ctx.server.base}/${L}/admin/organizations/${orgId}`);
      const row = op.getByTestId('org-conns').locator(`tr[data-conn="${connId}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-status'), 'on');
      await op.getByTestId('org-conn-routing').locator(`tr[data-domain="${domain}"][data-conn="${connId}"]`).waitFor();
      await settled(op);
      assert.deepEqual(await axeEveryRule(op), [], `axe, every rule: the console's organization page with its connection (${L})`);
      await op.close();

      // A colleague, in a browser of their own: mail at the domain -> "Continue with" -> IdP -> signed in, a member.
      const browser = await launchBrowser({ locale: L });
      try {
        const colleague = `pat-${tag}@${domain}`;
        const p = await browser.page();
        await setStorage(p, ctx.server.base, { umi_locale: L });
        await p.goto(`${ctx.server.base}/${L}/passport/signin`);
        await settled(p);
        await p.locator('form[data-testid="signin-password"] [name="account"]').fill(colleague);
        const button = p.locator('[data-testid="org-continue"]');
        await button.waitFor({ timeout: 10_000 });
        assert.equal(await button.textContent(), t['orgSignIn.continue'].replace('{company}', name));
        await button.click();
        await atIdp(p, colleague);
        await p.waitForFunction(() => !!localStorage.getItem('ciam_token'), undefined, { timeout: 20_000 });
        const token = await storage(p, 'ciam_token');
        const info = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, token);
        assert.equal(info.status, 200, JSON.stringify(info.json));
        const orgs = await apiCall(ctx.server.base, 'GET', '/org/mine', undefined, token);
        assert.deepEqual(
          orgs.json.organizations.map((o) => [o.organization.orgId, o.role]),
          [[orgId, 'member']],
          'joined just in time with the default role',
        );
        assert.deepEqual(browser.errors, [], 'no uncaught page error');
      } finally {
        await browser.close();
      }
    });
  }
});
