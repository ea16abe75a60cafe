// The operator console (issue 21) end to end, both languages, against a real `ciam serve` in real
// Chromium: console users hold a role granted by `ciam admin grant --role` and sign in with both
// factors (the console asks for it). (1) The support desk: a viewer finds a locked customer by
// the last four digits of the phone in the one find box and in the list of locked accounts (axe
// with every rule on that screen); an operator opens it: the lock's end and Unlock first, in view
// at 1280 x 800 and on a 390 x 844 phone, then the five failed attempts with their address and
// device (axe, every rule); writes a support note; unlocks it with a reason, the focus on the
// confirmation; the customer signs in; the customer's own security activity shows the unlock.
// (2) A two-factor reset: the customer then signs in with the password
// alone. (3) An app secret rotation: a new secret shown once, the old one kept until the chosen
// end. (4) The audit log exported as CSV and as JSON Lines, downloaded and parsed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, axeEveryRule, consoleUser, createAccount, enableTotp, LOCALES, ROOT, setStorage, settled, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const openapi = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));
/** The partner apps' console routes (another branch adds them): their tests wait for them. */
const APPS = openapi.paths['/admin/apps'] ? false : 'the /admin/apps routes are not in docs/openapi.json yet';
/** The audit export (`format=csv|json`): likewise. */
const EXPORT = (openapi.paths['/admin/audit']?.get?.parameters ?? []).some((p) => p.name === 'format')
  ? false
  : 'GET /admin/audit has no format parameter in docs/openapi.json yet';

let phones = 0;
/** A unique mobile number for this run. */
const uniquePhone = () => `139${String((Date.now() + phones++ * 7919) % 1e8).padStart(8, '0')}`;

/** Wrong passwords until the account is locked. */
async function lock(base, account) {
  for (let i = 0; i < 10; i++) {
    const r = await apiCall(base, 'POST', '/auth/login/password', { account, password: 'Wrong-Password-1!' });
    if (r.json?.reason === 'VERIFICATION_ATTEMPT_CODE_LIMIT') return;
  }
  assert.fail(`${account} was not locked after 10 wrong passwords`);
}

/** Opens `path` as the console user `who` (its token in storage) and waits for the screen. */
async function asConsole(L, who, path) {
  const page = await ctx.browser.page();
  await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: who.token, lastActionTime: String(Date.now()) });
  await page.goto(`${ctx.server.base}${path}`);
  await page.locator('.console-bar').waitFor();
  await settled(page);
  return page;
}

/** Whether the element `testId` lies wholly inside the viewport (above the fold, not scrolled to). */
async function aboveTheFold(page, testId) {
  return page.getByTestId(testId).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth && window.scrollY === 0;
  });
}

/** Takes an action on the open account page with a reason, and waits for its notice. */
async function act(page, action, reason, done) {
  await page.getByTestId(`action-${action}`).click();
  const d = page.getByTestId('action-dialog');
  await d.locator('textarea[name="reason"]').fill(reason);
  await d.getByTestId('reason-confirm').click();
  await page.getByTestId('action-done').filter({ hasText: done }).waitFor();
}

/** The customer signs in with the password form and lands on the personal centre. */
async function customerSignsIn(L, user) {
  const page = await ctx.browser.page();
  await setStorage(page, ctx.server.base, { umi_locale: L });
  await page.goto(`${ctx.server.base}/${L}/passport/signin`);
  const form = page.locator('form[data-testid="signin-password"]');
  await form.locator('[name="account"]').fill(user.account);
  await form.locator('[name="password"]').fill(user.password);
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(`**/${L}/personal/info**`);
  return page;
}

for (const L of LOCALES) {
  describe(`the operator console (${L})`, { skip }, () => {
    const t = messages[L];

    it('the support desk: a viewer finds a locked customer by phone, an operator unlocks it, the customer signs in and sees it', async () => {
      const { base } = ctx.server;
      const customer = await createAccount(ctx.server, { account: uniquePhone() });
      await lock(base, customer.account);
      const viewer = await consoleUser(ctx.server, 'viewer', `viewer-${L}`);
      const operator = await consoleUser(ctx.server, 'operator', `operator-${L}`);

      // The viewer: finds the account by its phone's last four digits in the one box (keyboard
      // only), sees it locked, also in the list of locked accounts, and cannot act on it.
      let page = await asConsole(L, viewer, `/${L}/admin/accounts`);
      const box = page.getByTestId('search-form').locator('input[name="q"]');
      await box.focus();
      await page.keyboard.type(customer.account.slice(-4));
      await page.keyboard.press('Enter');
      const found = page.getByTestId('matches-phoneEnd').locator('tbody tr').filter({ hasText: customer.userName });
      await found.filter({ hasText: t['admin.status.locked'] }).waitFor();
      await page.getByTestId('held-locked').click();
      await page.getByTestId('held').locator('tbody tr').filter({ hasText: customer.userName }).waitFor();
      assert.deepEqual(await axeEveryRule(page), [], `axe, every rule: the accounts screen with matches and the locked list (${L})`);
      await found.getByRole('link').focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('account-status').filter({ hasText: t['admin.status.locked'] }).waitFor();
      const userId = decodeURIComponent(where(page).split('/').pop());
      assert.equal(await page.getByTestId('action-unlock').count(), 0, 'a viewer does not act');
      assert.notEqual(await page.getByTestId('account-phone').textContent(), customer.account, 'the phone is masked');

      // The operator: the lock and Unlock first, in view on a desktop and on a phone, then the
      // five wrong passwords with their address and device.
      page = await asConsole(L, operator, `/${L}/admin/accounts/${encodeURIComponent(userId)}`);
      await page.getByTestId('account-status').filter({ hasText: t['admin.status.locked'] }).waitFor();
      const until = t['admin.account.lockedUntilLine'].split('{time}')[0];
      assert.ok((await page.getByTestId('account-status-detail').textContent()).startsWith(until));
      for (const [width, height] of [[1280, 800], [390, 844]]) {
        await page.setViewportSize({ width, height });
        await page.evaluate(() => window.scrollTo(0, 0));
        assert.ok(await aboveTheFold(page, 'action-unlock'), `Unlock above the fold at ${width} x ${height}`);
        assert.ok(await aboveTheFold(page, 'account-status-detail'), `the lock's end above the fold at ${width} x ${height}`);
      }
      const attempts = page.getByTestId('account-attempts').locator('li');
      assert.equal(await attempts.count(), 5, 'the five wrong passwords');
      for (const row of await attempts.allTextContents()) {
        assert.ok(row.includes(t['admin.attempt.password']), row);
        assert.ok(row.includes('127.0.0.1'), `the address: ${row}`);
      }
      const violations = [];
      for (const colorScheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme });
        for (const v of await axeEveryRule(page)) violations.push(`[${colorScheme}] ${v}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(violations, [], `axe on the locked account's page (${L})`);

      // A support note, saved with the operator's name; the confirmation takes the focus.
      await page.getByTestId('notes-form').locator('textarea[name="notes"]').fill(`Called ${L}: five wrong passwords from one address.`);
      await page.getByTestId('notes-save').click();
      await page.getByTestId('notes-saved').filter({ hasText: t['admin.notes.saved'] }).waitFor();
      await page.getByTestId('notes-last').filter({ hasText: operator.userName }).waitFor();

      // Unlocks it with a reason: the confirmation where the agent is, with the focus.
      await act(page, 'unlock', `Ticket ${L}: locked out on the phone`, t['admin.actionDone.unlock']);
      await page.getByTestId('account-status').filter({ hasText: t['admin.status.active'] }).waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'action-done');
      await page.setViewportSize({ width: 1280, height: 900 });

      // The customer signs in, and the security centre's activity shows the unlock.
      page = await customerSignsIn(L, customer);
      await page.goto(`${base}/${L}/personal/secure`);
      await page.getByTestId('activity').filter({ hasText: t['secure.activity.unlockedBySupport'] }).waitFor();
    });

    it('a two-factor reset: the customer signs in with the password alone afterwards', async () => {
      const customer = await createAccount(ctx.server, { account: uniqueMail(`console-2fa-${L.toLowerCase()}`) });
      await enableTotp(ctx.server, customer);
      const operator = await consoleUser(ctx.server, 'operator', `operator2-${L}`);
      const page = await asConsole(L, operator, `/${L}/admin/accounts`);
      const find = page.getByTestId('search-form');
      await find.locator('input[name="q"]').fill(customer.account);
      await find.locator('button[type="submit"]').click();
      await page.getByTestId('matches-mail').getByRole('link').click();
      await page.getByTestId('account-two-factor').filter({ hasText: t['admin.account.on'] }).waitFor();
      await act(page, 'reset-two-factor', 'Lost the phone with the authenticator', t['admin.actionDone.resetTwoFactor']);
      await page.getByTestId('account-two-factor').filter({ hasText: t['admin.account.off'] }).waitFor();
      // No second step any more: the password alone signs in.
      const signedIn = await customerSignsIn(L, customer);
      await signedIn.goto(`${ctx.server.base}/${L}/personal/secure`);
      await signedIn.getByTestId('activity').filter({ hasText: t['secure.activity.twoFactorResetBySupport'] }).waitFor();
    });

    it('an app secret rotation: the new secret shown once, the old one kept until the chosen end', { skip: APPS }, async () => {
      const admin = await consoleUser(ctx.server, 'admin', `admin-${L}`);
      const page = await asConsole(L, admin, `/${L}/admin/apps`);
      await page.getByTestId('new-app').click();
      const f = page.getByTestId('app-form');
      await f.locator('[name="name.zh-CN"]').fill(`控制台应用 ${L}`);
      await f.locator('[name="name.en-US"]').fill(`Console app ${L}`);
      await f.locator('[name="serviceUrls"]').fill(`https://console-${L.toLowerCase()}.example.com/cb`);
      await f.getByTestId('app-form-submit').click();
      const create = page.getByTestId('create-app-dialog');
      await create.locator('textarea[name="reason"]').fill('partner onboarding');
      await create.getByTestId('reason-confirm').click();
      const first = await page.getByTestId('app-secret').inputValue();
      assert.ok(first.length >= 32, 'the first secret is shown once');
      await page.getByTestId('secret-once').locator('..').getByRole('link').click();
      await page.getByTestId('app-id').waitFor();
      const appId = (await page.getByTestId('app-id').textContent()).trim();
      await page.getByTestId('rotate-secret').click();
      const rotate = page.getByTestId('rotate-dialog');
      await rotate.getByLabel(t['admin.app.end.hour']).check();
      await rotate.locator('textarea[name="reason"]').fill('scheduled rotation');
      await rotate.getByTestId('reason-confirm').click();
      const second = await page.getByTestId('app-secret').inputValue();
      assert.ok(second.length >= 32 && second !== first, 'a new secret, shown once');
      await page.getByTestId('retire-secret').waitFor();
      const app = await apiCall(ctx.server.base, 'GET', `/admin/apps/${encodeURIComponent(appId)}`, undefined, admin.token);
      assert.equal(app.status, 200, JSON.stringify(app.json));
      const until = app.json.app.previousSecretUntil;
      const hour = Date.now() / 1000 + 3600;
      assert.ok(Math.abs(until - hour) < 120, `the old secret works for an hour (${until})`);
      // A reload shows no secret: it was shown once.
      await page.reload();
      await page.getByTestId('app-id').waitFor();
      assert.equal(await page.getByTestId('app-secret').count(), 0);
    });

    it('the audit log exported as CSV and as JSON Lines, downloaded and parsed', { skip: EXPORT }, async () => {
      const customer = await createAccount(ctx.server, { account: uniqueMail(`console-audit-${L.toLowerCase()}`) });
      const operator = await consoleUser(ctx.server, 'operator', `operator3-${L}`);
      const reason = `audit export ${L} ${Date.now()}`;
      const me = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, customer.token);
      const acted = await apiCall(ctx.server.base, 'POST', `/admin/accounts/${encodeURIComponent(me.json.userId)}/end-sessions`, { reason }, operator.token);
      assert.equal(acted.status, 200, JSON.stringify(acted.json));
      const page = await asConsole(L, operator, `/${L}/admin/audit`);
      await page.getByTestId('audit').filter({ hasText: reason }).waitFor();
      // For people: the action in the page's language, the customer by username, linked.
      const row = page.getByTestId('audit').locator('tbody tr').filter({ hasText: reason });
      const said = await row.textContent();
      assert.ok(said.includes(L === 'zh-CN' ? '让账号在所有设备上退出登录' : 'Signed the account out everywhere'), said);
      assert.ok(!said.includes('account.endSessions') && !said.includes(me.json.userId), said);
      const link = row.getByRole('link', { name: customer.userName });
      assert.equal(await link.getAttribute('href'), `/${L}/admin/accounts/${me.json.userId}`);
      const read = async (testId) => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
        return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
      };
      const csv = await read('export-csv');
      assert.match(csv.name, /\.csv$/);
      const [header, ...rows] = csv.text.trim().split(/\r?\n/);
      const cols = header.split(',');
      for (const c of ['actor', 'action', 'target', 'reason']) assert.ok(cols.includes(c), `CSV column ${c} in ${header}`);
      assert.ok(rows.some((r) => r.includes(reason)), 'the action is a row of the CSV');
      const json = await read('export-json');
      const entries = json.text.trim().split('\n').map((l) => JSON.parse(l));
      const mine = entries.find((e) => e.reason === reason);
      assert.ok(mine, 'the action is a line of the JSON Lines');
      assert.equal(mine.target, me.json.userId);
      const op = await apiCall(ctx.server.base, 'GET', '/auth/info', undefined, operator.token);
      assert.equal(mine.actor, op.json.userId);
    });
  });
}
