// Organizations in the console (issue 35 items 1, 6) end to end, both languages, against a real
// `ciam serve` in real Chromium: a customer asks for an organization (through the API); an
// operator of the console finds the request on the organizations screen, approves it with a
// reason given in the dialog by keyboard, is told so with the focus on the words, and sees it
// active in the list and on its own page (status, one member, its owner, the organization's log
// with the approval and its reason). axe with every rule (best-practice and experimental too) on
// the organizations screen and on the organization's page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiCall, axeEveryRule, consoleUser, createAccount, LOCALES, ROOT, setStorage, settled, suite, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

/** The focused element's text and test id. */
const focused = (page) => page.evaluate(() => ({ text: document.activeElement?.textContent?.trim(), testId: document.activeElement?.getAttribute('data-testid') }));

describe('organizations in the console', { skip }, () => {
  for (const L of LOCALES) {
    it(`a customer's request is approved in the console and shows active (${L})`, async () => {
      const t = messages[L];
      const { server } = ctx;
      const operator = await consoleUser(server, 'operator', `orgs-${L}`);
      const customer = await createAccount(server, { account: uniqueMail(`org-asker-${L}`) });
      const names = { nameZh: `测试组织 ${L} ${Date.now() % 1e6}`, nameEn: `Test org ${L} ${Date.now() % 1e6}` };
      const name = L === 'zh-CN' ? names.nameZh : names.nameEn;
      const asked = await apiCall(server.base, 'POST', '/org/requests', names, customer.token);
      assert.equal(asked.status, 201, JSON.stringify(asked.json));
      const orgId = asked.json.orgId;

      const page = await ctx.browser.page();
      await setStorage(page, server.base, { umi_locale: L, ciam_token: operator.token, lastActionTime: String(Date.now()) });
      await page.goto(`${server.base}/${L}/admin/organizations`);
      const requests = page.getByTestId('org-requests');
      await requests.getByRole('link', { name }).waitFor();
      await page.getByTestId('orgs').waitFor();
      await settled(page);
      assert.deepEqual(await axeEveryRule(page), [], `axe, every rule: the organizations screen with a request (${L})`);

      // Approve, by keyboard: the button, then the reason (its field has the focus), then confirm.
      await requests.getByRole('button', { name: t['admin.orgs.approveOf'].replace('{name}', name) }).focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('org-decide-dialog').waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'reason');
      await page.keyboard.type('e2e: contract signed');
      await page.getByTestId('org-decide-dialog').getByTestId('reason-confirm').focus();
      await page.keyboard.press('Enter');
      const said = t['admin.orgs.approved'].replace('{name}', name);
      await page.getByTestId('orgs-done').getByText(said).waitFor();
      await page.waitForFunction((s) => document.activeElement?.textContent?.includes(s), said);
      assert.equal((await focused(page)).testId, 'orgs-done', 'the focus is on the confirmation');

      // Active in the list; no request waits any more.
      const row = page.getByTestId(`org-row-${orgId}`);
      await row.getByText(t['admin.org.status.active'], { exact: true }).waitFor();
      await page.getByTestId('no-org-requests').waitFor();

      // Its page: active, the asker its one owner, the approval in its log with the reason.
      await row.getByRole('link', { name }).click();
      await page.getByTestId('org-name').getByText(name).waitFor();
      await page.getByTestId('org-status').getByText(t['admin.org.status.active']).waitFor();
      const numbers = await page.getByTestId('org-numbers').locator('dd').allTextContents();
      assert.deepEqual(numbers, ['1', '1', '0'], 'members, owners, pending invitations');
      await page.getByTestId('org-members').locator('td').getByText(t['admin.org.role.owner'], { exact: true }).first().waitFor();
      const log = page.getByTestId('org-audit');
      await log.getByText('org.approve').waitFor();
      await log.getByText('e2e: contract signed').waitFor();
      await page.getByTestId('org-conns-none').waitFor();
      await settled(page);
      assert.deepEqual(await axeEveryRule(page), [], `axe, every rule: the organization's page (${L})`);

      // What the API says agrees.
      const got = await apiCall(server.base, 'GET', `/admin/organizations/${orgId}`, undefined, operator.token);
      assert.equal(got.json?.organization?.status, 'active');
      await page.close();
    });
  }
});
