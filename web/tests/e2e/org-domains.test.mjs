// An organization's verified domains (issue 35 item 3's screens), both languages, real `ciam serve`
// and Chromium: in "My company" its owner adds a domain to prove by mail, by keyboard alone (the
// domain, the method, "Add", the prefilled administrative address, "Send code", the code read from
// the dev outbox, "Verify"), then sets its enrolment to automatic; adds another to prove by DNS,
// sees the TXT record to publish, "Check now" answers that it is not there yet, and once the
// record is published (a DNS server of this test, which `ciam serve` asks through
// CIAM_DNS_RESOLVER) the same button verifies it. An operator then sees both on the console's
// organization page. axe with every rule (experimental included), light and dark, on "My company"
// with the new card (desktop and phone) and on the console's page.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, describe, it } from 'node:test';
import { active, apiCall, axeEveryRule, axeEveryWay, consoleUser, createAccount, isActive, LOCALES, messagesByLocale, setStorage, settled, suite, tabTo, uniqueMail, VIEWPORTS } from './harness.mjs';

/**
 * A DNS server on 127.0.0.1 answering TXT queries from `records` (name -> values), NXDOMAIN for
 * any other name: enough for one lookup of `_ciam-verify.<domain>` (RFC 1035 §4.1).
 */
async function fakeDns() {
  const records = new Map();
  const socket = createSocket('udp4');
  socket.on('message', (q, from) => {
    let i = 12;
    const labels = [];
    while (i < q.length && q[i] !== 0) {
      labels.push(q.subarray(i + 1, i + 1 + q[i]).toString('latin1'));
      i += q[i] + 1;
    }
    const end = i + 5; // the zero label, QTYPE, QCLASS
    const name = labels.join('.').toLowerCase();
    const type = q.readUInt16BE(i + 1);
    const values = type === 16 ? (records.get(name) ?? null) : [];
    const answers = (values ?? []).map((v) => {
      const text = Buffer.from(v, 'utf8');
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(16, 2); // TXT
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(0, 6); // TTL
      rr.writeUInt16BE(text.length + 1, 10);
      return Buffer.concat([rr, Buffer.from([text.length]), text]);
    });
    const head = Buffer.alloc(12);
    q.copy(head, 0, 0, 2); // the id
    // QR, the query's opcode and RD, AA, RA; NXDOMAIN when the name is unknown.
    head.writeUInt16BE(0x8000 | (q.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | (values === null ? 3 : 0), 2);
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([head, q.subarray(12, end), ...answers]), from.port, from.address);
  });
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { addr: `127.0.0.1:${socket.address().port}`, records, close: () => socket.close() };
}

const dns = await fakeDns();
after(() => dns.close());
const { skip, ctx } = suite({ server: { env: { CIAM_DNS_RESOLVER: dns.addr } } });
const messages = messagesByLocale();
const PASSWORD = 'Ciam-Dom-2026!';

/** An active organization whose owner is a new customer: asked for by them, approved by `operator`. */
async function organization(L, operator) {
  const owner = await createAccount(ctx.server, { account: uniqueMail(`dom-owner-${L.toLowerCase()}`), password: PASSWORD });
  const names = { nameZh: `域名公司${L}`, nameEn: `Domain ${L} Ltd` };
  const asked = await apiCall(ctx.server.base, 'POST', '/org/requests', names, owner.token);
  assert.equal(asked.status, 201, `request: ${JSON.stringify(asked.json)}`);
  const ok = await apiCall(ctx.server.base, 'POST', `/admin/organizations/${asked.json.orgId}/approve`, { reason: 'e2e: domains' }, operator.token);
  assert.equal(ok.status, 200, `approve: ${JSON.stringify(ok.json)}`);
  return { owner, orgId: asked.json.orgId };
}

let operator;

for (const L of LOCALES) {
  describe(`an organization's domains (${L})`, { skip }, () => {
    const t = messages[L];
    it('an owner proves one domain by mail and one by DNS, sets automatic enrolment; an operator sees them', async () => {
      operator ??= await consoleUser(ctx.server, 'operator', 'dom-e2e');
      const { owner, orgId } = await organization(L, operator);
      const tag = `${Date.now().toString(36)}${L === 'zh-CN' ? 'z' : 'e'}`;
      const byMail = `mail-${tag}.com`;
      const byDns = `dns-${tag}.com`;

      const page = await ctx.browser.page();
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: owner.token, lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/company`);
      const card = page.getByTestId('org-domains');
      await card.getByTestId('org-domains-none').waitFor();
      await settled(page);
      await axeEveryWay(page, `My company with no domain (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });

      // By mail, with the keyboard alone.
      const A = '[data-testid="org-domain-add"]';
      await page.locator('h1').first().focus();
      await tabTo(page, `${A} [name="domain"]`, 80);
      await page.keyboard.type(byMail);
      await tabTo(page, `${A} [name="method"]:checked`, 80);
      await page.keyboard.press('ArrowDown');
      assert.ok(await isActive(page, `${A} [name="method"][value="mail"]:checked`), `the arrow chose mail: ${await active(page)}`);
      await page.keyboard.press('Tab');
      assert.ok(await isActive(page, `${A} button[type="submit"]`), `Tab from the method: ${await active(page)}`);
      await page.keyboard.press('Enter');
      const row = card.locator(`[data-testid="org-domain"][data-domain="${byMail}"]`);
      await row.waitFor();
      await page.waitForFunction(() => document.activeElement?.closest('[data-testid="org-domain-mail"]') !== null);
      assert.equal(
        await page.getByTestId('org-domains-said').textContent(),
        t['org.domains.addedSay'].replace('{domain}', byMail),
      );
      const M = `[data-testid="org-domain"][data-domain="${byMail}"] [data-testid="org-domain-mail"]`;
      await page.keyboard.press('Tab');
      assert.ok(await isActive(page, `${M} [name="mail"]`), `Tab from the proof's words: ${await active(page)}`);
      assert.equal(await page.locator(`${M} [name="mail"]`).inputValue(), `admin@${byMail}`, 'the address is prefilled');
      await page.keyboard.press('Tab');
      assert.ok(await isActive(page, `${M} [data-testid="org-domain-send"]`), `Tab from the address: ${await active(page)}`);
      await page.keyboard.press('Enter');
      await page.waitForFunction((sel) => document.activeElement === document.querySelector(sel), `${M} [name="code"]`, { timeout: 20_000 });
      assert.equal(await page.locator(`${M} [data-testid="org-domain-sent"]`).textContent(), t['org.domainProof.sent'].replace('{mail}', `admin@${byMail}`));
      const code = await ctx.server.codeFor(`admin@${byMail}`);
      await page.keyboard.type(code);
      await page.keyboard.press('Tab');
      assert.ok(await isActive(page, `${M} [data-testid="org-domain-verify"]`), `Tab from the code: ${await active(page)}`);
      await page.keyboard.press('Enter');
      await card.locator(`[data-testid="org-domain"][data-domain="${byMail}"][data-status="verified"]`).waitFor();
      assert.equal(await page.getByTestId('org-domains-said').textContent(), t['org.domains.verifiedSay'].replace('{domain}', byMail));

      // Its enrolment: automatic.
      await row.getByTestId('org-domain-enrolment').selectOption('automatic');
      await card.locator(`[data-testid="org-domain"][data-domain="${byMail}"][data-enrolment="automatic"]`).waitFor();

      // By DNS: the record to publish; not there yet; published; verified.
      await page.locator(`${A} [name="domain"]`).fill(byDns);
      await page.locator(`${A} [name="method"][value="dns"]`).check();
      await page.locator(`${A} button[type="submit"]`).click();
      const dnsRow = card.locator(`[data-testid="org-domain"][data-domain="${byDns}"]`);
      await dnsRow.getByTestId('org-domain-dns').waitFor();
      const name = await dnsRow.getByTestId('org-domain-txt-name').textContent();
      const value = await dnsRow.getByTestId('org-domain-txt-value').textContent();
      assert.equal(name, `_ciam-verify.${byDns}`);
      assert.match(value, /^ciam-verify=[a-z2-7]{26}$/);
      await settled(page);
      await axeEveryWay(page, `My company with a verified and a pending domain (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });
      await dnsRow.getByTestId('org-domain-check').click();
      // Not there yet: said at the record, naming what was looked for.
      const answer = dnsRow.getByTestId('org-domain-check-answer');
      await answer.getByText(t['org.domainProof.notFound'].split('{record}')[0]).waitFor();
      assert.ok((await answer.textContent()).includes(`${name} TXT "${value}"`), await answer.textContent());
      dns.records.set(name, ['v=spf1 -all', value]);
      await dnsRow.getByTestId('org-domain-check').click();
      await card.locator(`[data-testid="org-domain"][data-domain="${byDns}"][data-status="verified"]`).waitFor();

      // The API agrees.
      const got = await apiCall(ctx.server.base, 'GET', `/org/${orgId}/domains`, undefined, owner.token);
      assert.deepEqual(
        got.json.domains.map((d) => [d.domain, d.status, d.method, d.enrolment]),
        [
          [byDns, 'verified', 'dns', 'off'],
          [byMail, 'verified', 'mail', 'automatic'],
        ],
      );
      await page.close();

      // The operator, on the console's organization page.
      const op = await ctx.browser.page();
      await op.setViewportSize(VIEWPORTS[0]);
      await setStorage(op, ctx.server.base, { umi_locale: L, ciam_token: operator.token, lastActionTime: String(Date.now()) });
      await op.goto(`${ctx.server.base}/${L}/admin/organizations/${orgId}`);
      const table = op.getByTestId('org-domains');
      const mailRow = table.locator(`tr[data-domain="${byMail}"]`);
      await mailRow.waitFor();
      assert.equal(await mailRow.getAttribute('data-status'), 'verified');
      assert.equal(await mailRow.getByRole('combobox').inputValue(), 'automatic');
      assert.equal(await table.locator(`tr[data-domain="${byDns}"]`).getAttribute('data-status'), 'verified');
      await op.getByTestId('org-conns-none').waitFor();
      await op.getByTestId('org-audit').getByText('domain.verify').first().waitFor();
      await settled(op);
      assert.deepEqual(await axeEveryRule(op), [], `axe, every rule: the console's organization page with its domains (${L})`);
      await op.close();
    });
  });
}
