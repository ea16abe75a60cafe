// The company's own sign-in offered by verified domain (docs/organizations-connections.md §0.4-5),
// both languages, real `ciam serve` and Chromium: a colleague at a routed domain types their mail
// on the sign-in and is offered "Continue with <company>" (announced, reachable by keyboard); when
// the company requires it, the password field gives way and the page says why; the server
// refuses the password all the same (ORG_SIGN_IN_REQUIRED naming the connection); axe with every
// rule on that state. A mail elsewhere keeps the password.
//
// The routing is set up through the store with `ciam admin org-sign-in --verify` (the domain
// verified and routed to a new connection, on, on the operator's word); the screens that set up,
// test and route a connection have their own test (org-connections.test.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiCall, axeEveryWay, createAccount, LOCALES, messagesByLocale, setStorage, settled, suite, uniqueMail, VIEWPORTS } from './harness.mjs';

const { skip, ctx } = suite();
const messages = messagesByLocale();
const PASSWORD = 'Ciam-Org-2026!';

for (const L of LOCALES) {
  describe(`the company's own sign-in by verified domain (${L})`, { skip }, () => {
    const t = messages[L];
    it('a routed mail is offered its company; required hides the password, and the server refuses it', async () => {
      const tag = `${L.toLowerCase()}-${Date.now().toString(36)}`;
      const domain = `corp-${tag}.example`;
      const company = { en: `Corp ${L} Ltd`, zh: `示例集团${L}` };
      const name = L === 'zh-CN' ? company.zh : company.en;
      // A colleague who signed up before the company routed its domain, and the organization.
      const colleague = await createAccount(ctx.server, { account: `pat-${tag}@${domain}`, password: PASSWORD });
      const owner = await createAccount(ctx.server, { account: uniqueMail(`corp-owner-${L.toLowerCase()}`), password: PASSWORD });
      const orgId = ctx.server.admin('org-create', owner.account, '--name-en', company.en, '--name-zh', company.zh, '--reason', 'e2e: org sign-in');
      const route = (...more) =>
        ctx.server.admin('org-sign-in', domain, '--org', orgId, '--name-en', company.en, '--name-zh', company.zh, '--verify', '--reason', 'e2e: org sign-in', ...more);

      // Routed, not required: offered, the password kept.
      const first = route();
      const page = await ctx.browser.page();
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await page.goto(`${ctx.server.base}/${L}/passport/signin?appId=none`);
      await settled(page);
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').waitFor();
      // By keyboard: the account field is focused and typed into.
      await form.locator('[name="account"]').focus();
      await page.keyboard.type(colleague.account);
      const button = page.locator('[data-testid="org-continue"]');
      await button.waitFor({ timeout: 10_000 });
      assert.equal(await button.textContent(), t['orgSignIn.continue'].replace('{company}', name));
      assert.equal(await page.locator('[data-testid="org-signin"]').getAttribute('aria-live'), 'polite', 'the offer is announced');
      assert.ok(await form.locator('[name="password"]').isVisible(), 'not required: the password stays');
      // The button, above the form, is the next stop back from the account field.
      await page.keyboard.press('Shift+Tab');
      const at = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
      assert.equal(at, 'org-continue', 'the company button is reachable by keyboard');

      // Required (a second connection routed, required): the password gives way, the page says why.
      const conn = route('--required');
      assert.notEqual(conn, first);
      await page.goto(`${ctx.server.base}/${L}/passport/signin`);
      await settled(page);
      await form.locator('[name="account"]').fill(colleague.account);
      const why = page.locator('[data-testid="org-required"]');
      await why.waitFor({ timeout: 10_000 });
      assert.equal(await why.textContent(), t['orgSignIn.required'].replace('{company}', name));
      await page.waitForFunction(() => !document.querySelector('form[data-testid="signin-password"] [name="password"]')?.checkVisibility());
      assert.ok(await form.locator('[name="account"]').isVisible(), 'the account stays, to type another');
      assert.ok(!(await form.locator('button[type="submit"]').isVisible()), 'no password sign-in to press');
      await axeEveryWay(page, `the company's required sign-in (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });

      // The start it leaves for: the connection, the language, this tab's bind hash.
      const [request] = await Promise.all([
        page.waitForRequest((r) => r.url().includes('/ciam/v1/auth/org/start'), { timeout: 10_000 }),
        button.click(),
      ]);
      const start = new URL(request.url());
      assert.equal(start.searchParams.get('connection'), conn);
      assert.equal(start.searchParams.get('lang'), L);
      assert.match(start.searchParams.get('bindHash') ?? '', /^[A-Za-z0-9_-]{43}$/);

      // The server's rule: the right password refused, naming the connection; a mail elsewhere
      // signs in as ever.
      const refused = await apiCall(ctx.server.base, 'POST', '/auth/login/password', { account: colleague.account, password: PASSWORD });
      assert.equal(refused.status, 403, JSON.stringify(refused.json));
      assert.equal(refused.json.reason, 'ORG_SIGN_IN_REQUIRED');
      assert.equal(refused.json.connection, conn);
      const other = await apiCall(ctx.server.base, 'POST', '/auth/login/password', { account: owner.account, password: PASSWORD });
      assert.equal(other.status, 200, JSON.stringify(other.json));
      await page.close();
    });
  });
}
