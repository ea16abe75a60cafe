// Confirmations in view (issue 34 item 5), both languages, against a real `ciam serve` in real
// Chromium, on a 390 x 844 phone and a 1280 x 800 desktop: after an operator unlocks a locked
// account, the confirmation is in the actions' section, it has the focus (not the body), it lies
// within the viewport and is what the browser shows at its own centre (elementFromPoint). An
// app's rotated secret appears in the Secret section, with the focus, in view. axe with every rule
// on the account page with its confirmation, light and dark.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, axeEveryRule, consoleUser, createAccount, LOCALES, ROOT, setStorage, settled, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const openapi = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));
const APPS = openapi.paths['/admin/apps'] ? false : 'the /admin/apps routes are not in docs/openapi.json';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** Wrong passwords until the account is locked. */
async function lock(base, account) {
  for (let i = 0; i < 10; i++) {
    const r = await apiCall(base, 'POST', '/auth/login/password', { account, password: 'Wrong-Password-1!' });
    if (r.json?.reason === 'VERIFICATION_ATTEMPT_CODE_LIMIT') return;
  }
  assert.fail(`${account} was not locked after 10 wrong passwords`);
}

async function asConsole(L, who, path, viewport) {
  const page = await ctx.browser.page();
  await page.setViewportSize(viewport);
  await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: who.token, lastActionTime: String(Date.now()) });
  await page.goto(`${ctx.server.base}${path}`);
  await page.locator('.console-bar').waitFor();
  await settled(page);
  return page;
}

/**
 * The element with `testId` has the focus, lies within the viewport, and is what the browser
 * shows at its centre (nothing covers it).
 */
async function focusedInView(page, testId, label) {
  await page.waitForFunction((id) => document.activeElement?.getAttribute('data-testid') === id, testId, { timeout: 5000 }).catch(() => {});
  const seen = await page.evaluate((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (!el) return { missing: true };
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + Math.min(r.height / 2, 20);
    const at = document.elementFromPoint(x, y);
    return {
      focused: document.activeElement === el,
      active: document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName,
      inView: r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
      rect: r.toJSON(),
      onTop: !!at && (el === at || el.contains(at)),
    };
  }, testId);
  assert.ok(!seen.missing, `${label}: no ${testId}`);
  assert.ok(seen.focused, `${label}: the focus is on ${seen.active}, not ${testId}`);
  assert.ok(seen.inView, `${label}: ${testId} is out of view ${JSON.stringify(seen.rect)}`);
  assert.ok(seen.onTop, `${label}: ${testId} is covered`);
}

for (const L of LOCALES) {
  describe(`confirmations in view (${L})`, { skip }, () => {
    const t = messages[L];

    for (const vp of VIEWPORTS) {
      it(`an unlock's confirmation has the focus, in view, at ${vp.width} x ${vp.height}`, async () => {
        const customer = await createAccount(ctx.server, { account: uniqueMail(`in-view-${vp.width}-${L.toLowerCase()}`) });
        await lock(ctx.server.base, customer.account);
        const operator = await consoleUser(ctx.server, 'operator', `in-view-${vp.width}-${L}`);
        const find = await apiCall(ctx.server.base, 'GET', `/admin/accounts?mail=${encodeURIComponent(customer.account)}`, undefined, operator.token);
        assert.equal(find.status, 200, JSON.stringify(find.json));
        const userId = find.json.account.userId;
        const page = await asConsole(L, operator, `/${L}/admin/accounts/${encodeURIComponent(userId)}`, vp);
        await page.getByTestId('account-status').filter({ hasText: t['admin.status.locked'] }).waitFor();
        await page.getByTestId('action-unlock').click();
        const d = page.getByTestId('action-dialog');
        await d.locator('textarea[name="reason"]').fill(`Ticket ${L}: locked out`);
        await d.getByTestId('reason-confirm').click();
        await page.getByTestId('action-done').filter({ hasText: t['admin.actionDone.unlock'] }).waitFor();
        await page.getByTestId('account-status').filter({ hasText: t['admin.status.active'] }).waitFor();
        await focusedInView(page, 'action-done', `unlock at ${vp.width} px (${where(page)})`);
        assert.equal(await page.getByTestId('action-done').getAttribute('role'), 'status');
        assert.equal(await page.getByTestId('action-done').evaluate((el) => el.closest('section')?.id), 'actions');
        if (vp.width === 390) {
          const found = [];
          for (const colorScheme of ['light', 'dark']) {
            await page.emulateMedia({ colorScheme });
            for (const v of await axeEveryRule(page)) found.push(`[${colorScheme}] ${v}`);
          }
          await page.emulateMedia({ colorScheme: 'light' });
          assert.deepEqual(found, [], `axe on the account page with its confirmation (${L})`);
        }
      });
    }

    it('a rotated app secret appears in the Secret section, with the focus, in view', { skip: APPS }, async () => {
      const admin = await consoleUser(ctx.server, 'admin', `in-view-admin-${L}`);
      const page = await asConsole(L, admin, `/${L}/admin/apps`, VIEWPORTS[0]);
      await page.getByTestId('new-app').click();
      const f = page.getByTestId('app-form');
      await f.locator('[name="name.zh-CN"]').fill(`就地应用 ${L}`);
      await f.locator('[name="name.en-US"]').fill(`In view app ${L}`);
      await f.locator('[name="serviceUrls"]').fill(`https://in-view-${L.toLowerCase()}.example.com/cb`);
      await f.getByTestId('app-form-submit').click();
      const create = page.getByTestId('create-app-dialog');
      await create.locator('textarea[name="reason"]').fill('partner onboarding');
      await create.getByTestId('reason-confirm').click();
      await page.getByTestId('app-secret').waitFor();
      await focusedInView(page, 'app-secret', 'the new app secret');
      await page.getByTestId('secret-once').locator('..').getByRole('link').click();
      await page.getByTestId('app-id').waitFor();
      await settled(page);
      await page.getByTestId('rotate-secret').click();
      const rotate = page.getByTestId('rotate-dialog');
      await rotate.getByLabel(t['admin.app.end.hour']).check();
      await rotate.locator('textarea[name="reason"]').fill('scheduled rotation');
      await rotate.getByTestId('reason-confirm').click();
      await page.getByTestId('app-secret').waitFor();
      assert.equal(await page.getByTestId('app-secret').evaluate((el) => el.closest('section')?.id), 'secret', 'in the Secret section');
      await focusedInView(page, 'app-secret', 'the rotated app secret');
    });
  });
}
