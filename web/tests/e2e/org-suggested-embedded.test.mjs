// Issue 35, real `ciam serve` and Chromium, both languages:
// 1. "My company"'s suggested organization: an organization verifies a domain and sets its
//    enrolment to `suggest`; a person who proves an address there (sign-up by mail code) sees
//    "Your address at <domain> lets you join <org>" with Join / Not now; axe with every rule
//    (experimental included), light and dark, desktop and phone; Join makes them a member.
// 2. The embedded sign-in's company button: a partner's page frames the sign-in; a mail at a
//    domain whose company requires its own sign-in is offered "Continue with <company> (opens a
//    new window)" and the password gives way; the button opens a popup at the company's start
//    with `orgFrame=1` in the query to return to (the frame never leaves); the way back (here a
//    refusal: the test connection's IdP, https://idp.invalid, does not answer) is handed by the
//    popup to the frame, which says it and posts `ciam:error` to the partner's page; the popup
//    closes. The frame's language is the browser's (docs/partners.md §5): a browser per language.
// The routing is set up with `ciam admin org-sign-in --verify` (as org-discover.test.mjs does).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { apiCall, axeEveryWay, createAccount, framingSite, launchBrowser, LOCALES, messagesByLocale, setStorage, settled, suite, uniqueMail, VIEWPORTS } from './harness.mjs';

const { skip, ctx } = suite();
const messages = messagesByLocale();
const PASSWORD = 'Ciam-Org-2026!';

/** An organization owning a verified `domain` (routed to a connection of its own, required or not). */
async function company(L, tag, domain, required) {
  const names = { en: `Corp ${tag}`, zh: `示例集团${tag}` };
  const owner = await createAccount(ctx.server, { account: uniqueMail(`owner-${tag}`), password: PASSWORD });
  const orgId = ctx.server.admin('org-create', owner.account, '--name-en', names.en, '--name-zh', names.zh, '--reason', 'e2e: issue 35');
  const conn = ctx.server.admin('org-sign-in', domain, '--org', orgId, '--name-en', names.en, '--name-zh', names.zh, '--verify', '--reason', 'e2e: issue 35',
    ...(required ? ['--required'] : []));
  return { owner, orgId, conn, name: L === 'zh-CN' ? names.zh : names.en };
}

/** A tiny partner site on 127.0.0.1 that frames the URL in its hash. */
let site;
async function partnerSite() {
  site ??= await framingSite(ctx.server, { 'zh-CN': `嵌入公司登录${Date.now()}`, 'en-US': `Embedded company ${Date.now()}` });
  return site;
}
after(async () => site?.close());

for (const L of LOCALES) {
  describe(`a suggested organization (${L})`, { skip }, () => {
    const t = messages[L];
    it('a proven address at a suggesting domain sees the organization, axe-clean, and joins it', async () => {
      const tag = `${L === 'zh-CN' ? 'z' : 'e'}${Date.now().toString(36)}`;
      const domain = `suggest-${tag}.example`;
      const corp = await company(L, tag, domain, false);
      const enrol = await apiCall(ctx.server.base, 'PATCH', `/org/${corp.orgId}/domains/${domain}`, { enrolment: 'suggest' }, corp.owner.token);
      assert.equal(enrol.status, 200, JSON.stringify(enrol.json));
      // Signed up by a mail code: the address is proven, so the organization is suggested.
      const pat = await createAccount(ctx.server, { account: `pat-${tag}@${domain}`, password: PASSWORD });
      const listed = await apiCall(ctx.server.base, 'GET', '/org/suggested', undefined, pat.token);
      assert.deepEqual(listed.json.suggestions.map((s) => [s.orgId, s.domain]), [[corp.orgId, domain]]);

      const page = await ctx.browser.page();
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: pat.token, lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/company`);
      const row = page.getByTestId('org-suggestion');
      await row.waitFor({ timeout: 15_000 });
      const lead = t['org.suggested.lead'].replace('{domain}', domain).replace('{org}', corp.name);
      assert.equal(await row.locator('p').textContent(), lead);
      assert.equal(await row.getByTestId('org-suggestion-join').textContent(), t['org.suggested.join']);
      assert.equal(await row.getByTestId('org-suggestion-decline').textContent(), t['org.suggested.notNow']);
      await page.getByTestId('org-none').waitFor();
      await settled(page);
      await axeEveryWay(page, `My company with a suggested organization (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });

      await row.getByTestId('org-suggestion-join').click();
      const joined = page.getByTestId('org-joined');
      await joined.waitFor({ timeout: 15_000 });
      assert.equal(await joined.textContent(), t['org.joined'].replace('{org}', corp.name));
      await page.locator(`[data-testid="org-item"][data-org-id="${corp.orgId}"]`).waitFor();
      assert.equal(await page.getByTestId('org-suggestion').count(), 0, 'the suggestion is gone');
      assert.ok(page.url().endsWith(`/${L}/personal/company?org=${corp.orgId}`), page.url());
      await settled(page);
      await axeEveryWay(page, `My company after joining a suggested organization (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });
      // The server agrees: a member now, and nothing suggested any more.
      const mine = await apiCall(ctx.server.base, 'GET', '/org/mine', undefined, pat.token);
      assert.deepEqual(mine.json.organizations.map((o) => [o.organization.orgId, o.role]), [[corp.orgId, 'member']]);
      const after = await apiCall(ctx.server.base, 'GET', '/org/suggested', undefined, pat.token);
      assert.deepEqual(after.json.suggestions, []);
      await page.close();
    });
  });

  describe(`the embedded sign-in's company button (${L})`, { skip }, () => {
    const t = messages[L];
    it('offers the company, opens it in a popup, and hears its way back in the frame', async () => {
      const host = await partnerSite();
      const tag = `${L === 'zh-CN' ? 'z' : 'e'}f${Date.now().toString(36)}`;
      const domain = `frame-${tag}.example`;
      // A colleague who signed up before the company required its own sign-in.
      const colleague = await createAccount(ctx.server, { account: `pat-${tag}@${domain}`, password: PASSWORD });
      const corp = await company(L, tag, domain, true);

      const browser = await launchBrowser({ locale: L });
      try {
        const starts = [];
        browser.context.on('request', (r) => r.url().includes('/ciam/v1/auth/org/start') && starts.push(new URL(r.url())));
        const page = await browser.page();
        const src = `${ctx.server.base}/${L}/embedded/signin?appId=${host.appId}&validateMsg=notice&serviceUrl=${host.serviceUrl}`;
        await page.goto(`${host.origin}/#${encodeURIComponent(src)}`);
        const frame = page.frameLocator('iframe');
        const form = frame.locator('form[data-testid="signin-password"]');
        await form.locator('[name="account"]').waitFor({ timeout: 15_000 });
        await form.locator('[name="account"]').fill(colleague.account);
        const button = frame.getByTestId('org-continue');
        await button.waitFor({ timeout: 10_000 });
        assert.equal(await button.textContent(), t['orgSignIn.newWindow'].replace('{company}', corp.name));
        assert.equal(await frame.getByTestId('org-required').textContent(), t['orgSignIn.required'].replace('{company}', corp.name));
        await form.locator('[name="password"]').waitFor({ state: 'hidden' });

        // axe (every rule, light and dark, the frame's size and a phone) on the frame's company
        // state, top-level here (axe reads the page; embedded-frame.test.mjs does the same).
        const alone = await browser.context.newPage();
        await alone.setViewportSize({ width: 600, height: 700 });
        await alone.goto(src);
        await alone.locator('form[data-testid="signin-password"] [name="account"]').fill(colleague.account);
        await alone.getByTestId('org-continue').waitFor({ timeout: 10_000 });
        await settled(alone);
        await axeEveryWay(alone, `the embedded sign-in's company button (${L})`, [{ width: 600, height: 700 }, VIEWPORTS[1]]);
        await alone.close();

        // The popup: Ciam's start for the connection, with the frame's marker in the way back.
        const [popup] = await Promise.all([page.waitForEvent('popup', { timeout: 10_000 }), button.click()]);
        // The IdP does not answer: the start comes back with a refusal, which the popup hands to
        // the frame, and closes.
        await popup.waitForEvent('close', { timeout: 20_000 });
        assert.equal(starts.length, 1, 'one start');
        assert.equal(starts[0].searchParams.get('connection'), corp.conn);
        assert.equal(starts[0].searchParams.get('lang'), L);
        assert.match(starts[0].searchParams.get('bindHash') ?? '', /^[A-Za-z0-9_-]{43}$/);
        assert.equal(starts[0].searchParams.get('query'), `orgFrame=1&appId=${host.appId}&validateMsg=notice&serviceUrl=${host.serviceUrl}`);
        const said = frame.getByTestId('org-frame-error');
        await said.waitFor({ timeout: 10_000 });
        const text = await said.textContent();
        assert.ok(text.includes(corp.name), text);
        await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ciam:error'));
        const posted = (await page.evaluate(() => window.__messages)).filter((m) => m.data?.type === 'ciam:error');
        assert.equal(posted.length, 1, JSON.stringify(posted));
        assert.equal(posted[0].origin, ctx.server.base);
        assert.equal(posted[0].data.errMsg, text);
        assert.ok(page.url().startsWith(host.origin), 'the partner page never left');
        assert.ok(await form.locator('[name="account"]').isVisible(), 'the frame is still the sign-in');

        // The server refuses the password all the same.
        const refused = await apiCall(ctx.server.base, 'POST', '/auth/login/password', { account: colleague.account, password: PASSWORD });
        assert.equal(refused.json.reason, 'ORG_SIGN_IN_REQUIRED');
      } finally {
        await browser.close();
      }
    });
  });
}
