// Accessibility with the whole of axe-core (issue 12 §7): every rule tag axe knows, the
// `best-practice` and `experimental` ones included, and `label-content-name-mismatch` (WCAG 2.5.3,
// experimental, off by default) switched on by name and checked to have run. Every screen of spec
// §2 (and the states a user meets on them: sign-in by code, sign-up with errors, the account
// picker, the two-factor step, two-factor set-up), in both languages, in the light AND the dark
// colour scheme (`prefers-color-scheme`), at 1280x800 and 390x844. One load per screen; the
// scheme and the viewport change under it (both apply live).
//
// No rule is switched off. Where a rule cannot pass by design, the exclusion is narrow (one rule
// on one selector) and says why, in EXCLUSIONS below.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, axeEveryWay, base32, consoleUser, createAccount, expectLanding, LOCALES, ROOT, setStorage, settled, suite, totp, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const openapi = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));
/** The console's partner-app screens need their routes (GET /admin/apps...). */
const CONSOLE_APPS = Boolean(openapi.paths['/admin/apps']);
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * Narrow exclusions: [rule id, CSS selector of the nodes, why]. A node of that rule matching the
 * selector is not a failure; everything else is.
 */
const EXCLUSIONS = [];

const excluded = (ruleId, target) =>
  EXCLUSIONS.some(([id, sel]) => id === ruleId && target.some((t) => String(t) === sel || String(t).endsWith(sel)));

/** axe in both schemes at both viewports, on the page as loaded, less the exclusions. */
const everyWay = (page, label) => axeEveryWay(page, label, VIEWPORTS, { excluded, restore: VIEWPORTS[0] });

// RFC 6238 (HMAC-SHA1, 6 digits, 30 s) for the two-factor step.
/** [label, url, what to wait for] of the screens anyone can open. */
const PUBLIC = (L) => [
  ['sign-in', `/${L}/passport/signin`, 'form[data-testid="signin-password"]'],
  ['sign-up', `/${L}/passport/register`, 'form[data-testid="register"]'],
  ['find password', `/${L}/find/password`, 'form[data-testid="find-password"]'],
  ['privacy policy', `/${L}/agreement/privacy`, 'h1'],
  ['service agreement', `/${L}/agreement/protocols`, 'h1'],
  ['user manual', `/${L}/agreement/manual`, 'h1'],
  ['deactivate account / logout', `/${L}/logout`, 'h1'],
  ['authorize', `/${L}/passport/authorize?appName=Partner%20App`, 'h1'],
  ['embedded sign-in', `/${L}/embedded/signin?serviceUrl=https://host.example.com/page&validateMsg=notice`, 'form'],
];

for (const L of LOCALES) {
  describe(`accessibility, every axe tag, light and dark, 1280 and 390 px (${L})`, { skip }, () => {
    const t = messages[L];
    const open = async (url, ready, storage = {}) => {
      const page = await ctx.browser.page();
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L, ...storage });
      await expectLanding(page, ctx.server.base, url, url.replace(/#.*/, ''), { stableMs: 100 });
      await page.locator(ready).first().waitFor();
      return page;
    };

    for (const [label, url, ready] of PUBLIC(L)) {
      it(label, async () => everyWay(await open(url, ready), `${label} (${L})`));
    }

    it('sign-in by verification code', async () => {
      const page = await open(`/${L}/passport/signin`, 'form[data-testid="signin-password"]');
      await page.locator('[data-testid="signin-mode-code"]').click();
      await page.locator('form[data-testid="signin-code"]').waitFor();
      await everyWay(page, `sign-in by code (${L})`);
    });

    it('sign-in, a wrong password (the inline alert)', async () => {
      const user = await createAccount(ctx.server, { account: uniqueMail(`a11y-wrong-${L.toLowerCase()}`) });
      const page = await open(`/${L}/passport/signin`, 'form[data-testid="signin-password"]');
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(user.account);
      await form.locator('[name="password"]').fill('Wrong-Password-0!');
      await form.locator('button[type="submit"]').click();
      await form.locator('[data-testid="form-alert"] [role="alert"]', { hasText: t['error.PASSWORD_ERROR'] }).waitFor();
      await everyWay(page, `sign-in, wrong password (${L})`);
    });

    it('sign-up with every field in error', async () => {
      const page = await open(`/${L}/passport/register`, 'form[data-testid="register"]');
      await page.locator('form[data-testid="register"] button[type="submit"]').click();
      await page.locator('form[data-testid="register"] [aria-invalid="true"]').first().waitFor();
      await everyWay(page, `sign-up with errors (${L})`);
    });

    it('signed out (/signout)', async () => {
      const page = await ctx.browser.page();
      await page.emulateMedia({ colorScheme: 'light' });
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await expectLanding(page, ctx.server.base, '/signout', '/signout', { stableMs: 100 });
      await page.locator('[data-testid="signed-out"]').waitFor();
      await everyWay(page, `signout (${L})`);
    });

    it('personal info, and the account picker after signing out', async () => {
      const user = await createAccount(ctx.server);
      const page = await open(`/${L}/personal/info`, '[data-testid="info-username"]', {
        ciam_token: user.token,
        lastActionTime: String(Date.now()),
        ciam_accounts: JSON.stringify([{ account: user.account, lastUsed: Date.now() }]),
      });
      await everyWay(page, `personal info (${L})`);
      await page.locator('[data-testid="logout"]').click();
      await page.waitForURL(`**/${L}/passport/signin`);
      await page.locator('[data-testid="remembered-account"]').first().waitFor();
      await everyWay(page, `sign-in, choose an account (${L})`);
    });

    it('security centre, and two-factor set-up', async () => {
      const user = await createAccount(ctx.server);
      const page = await open(`/${L}/personal/secure`, '[data-testid="change-password-open"]', {
        ciam_token: user.token,
        lastActionTime: String(Date.now()),
      });
      await everyWay(page, `security centre (${L})`);
      await page.locator('[data-testid="totp-enable"]').click();
      await page.locator('img[data-testid="totp-qr"]').waitFor();
      await everyWay(page, `two-factor set-up (${L})`);
    });

    it('the two-factor step of sign-in (modal)', async () => {
      const { base } = ctx.server;
      const user = await createAccount(ctx.server, { account: uniqueMail(`a11y-mfa-${L.toLowerCase()}`) });
      const uri = await apiCall(base, 'GET', '/auth/totp/url', undefined, user.token);
      const key = base32(new URL(uri.json.url).searchParams.get('secret'));
      const enabled = await apiCall(base, 'POST', '/auth/totp/enable', { code: totp(key) }, user.token);
      assert.equal(enabled.status, 200, JSON.stringify(enabled.json));
      const page = await open(`/${L}/passport/signin`, 'form[data-testid="signin-password"]');
      const form = page.locator('form[data-testid="signin-password"]');
      await form.locator('[name="account"]').fill(user.account);
      await form.locator('[name="password"]').fill(user.password);
      await form.locator('button[type="submit"]').click();
      await page.getByRole('dialog', { name: t['mfa.title'] }).locator('[data-testid="mfa-code"]').waitFor();
      await settled(page);
      await everyWay(page, `two-factor step (${L})`);
    });

    it('the operator console: every screen, its dialogs and its charts\' tables', async () => {
      const { base } = ctx.server;
      const admin = await consoleUser(ctx.server, 'admin', `a11y-console-${L.toLowerCase()}`);
      const customer = await createAccount(ctx.server, { account: uniqueMail(`a11y-customer-${L.toLowerCase()}`) });
      const me = await apiCall(base, 'GET', '/auth/info', undefined, customer.token);
      const signedIn = { ciam_token: admin.token, lastActionTime: String(Date.now()) };
      // The overview, with one chart's table open.
      let page = await open(`/${L}/admin`, '[data-testid="chart-outcome"]', signedIn);
      await settled(page);
      await page.locator('[data-testid="chart-outcome"] summary').click();
      await everyWay(page, `console overview (${L})`);
      // Accounts, with a found account, the list of suspended accounts and a listed company.
      page = await open(`/${L}/admin/accounts`, '[data-testid="search-form"]', signedIn);
      await page.locator('[data-testid="search-form"] input[name="q"]').fill(customer.account);
      await page.locator('[data-testid="search-form"] button[type="submit"]').click();
      await page.locator('[data-testid="matches-mail"]').waitFor();
      await page.locator('[data-testid="held-suspended"]').click();
      await page.locator('[data-testid="held-suspended"][aria-pressed="true"]').waitFor();
      await page.locator('[data-testid="directory-form"] input[name="listValue"]').fill('Acme');
      await page.locator('[data-testid="directory-form"] button[type="submit"]').click();
      await page.locator('[data-testid="directory"]').waitFor();
      await everyWay(page, `console accounts (${L})`);
      // One account, and an action's reason dialog.
      page = await open(`/${L}/admin/accounts/${encodeURIComponent(me.json.userId)}`, '[data-testid="account-status"]', signedIn);
      await everyWay(page, `console account (${L})`);
      await page.locator('[data-testid="action-end-sessions"]').click();
      await page.locator('[data-testid="action-dialog"] [data-testid="reason-confirm"]').click();
      await page.locator('[data-testid="action-dialog"] textarea[aria-invalid="true"]').waitFor();
      await everyWay(page, `console action dialog with an error (${L})`);
      await page.keyboard.press('Escape');
      // The audit log and the roles.
      page = await open(`/${L}/admin/audit`, '[data-testid="audit-form"]', signedIn);
      await settled(page);
      await everyWay(page, `console audit (${L})`);
      page = await open(`/${L}/admin/roles`, '[data-testid="roles"]', signedIn);
      await everyWay(page, `console roles (${L})`);
      if (CONSOLE_APPS) {
        page = await open(`/${L}/admin/apps`, '[data-testid="new-app"]', signedIn);
        await settled(page);
        await page.locator('[data-testid="new-app"]').click();
        await page.locator('[data-testid="app-form-submit"]').click();
        await page.locator('[data-testid="app-form"] [aria-invalid="true"]').first().waitFor();
        await everyWay(page, `console apps, a new app with errors (${L})`);
      }
      // A customer's session: the no-role screen.
      page = await open(`/${L}/admin`, '[data-testid="console-noRole"]', { ciam_token: customer.token, lastActionTime: String(Date.now()) });
      await everyWay(page, `console, no role (${L})`);
    });
  });
}
