// "My company" and an organization's invitation (issue 35 item 2), both languages, real
// `ciam serve` and Chromium: an organization's owner (a customer whose request an operator
// approved, through the API) invites a colleague by mail in "My company"; the colleague opens the
// link from the dev outbox in a browser of their own, signs up, signs in and lands in the
// organization as a member. The main path by keyboard only (Tab, Enter, Space, typing into what
// the keyboard focused); axe with every rule (experimental included), light and dark, on the new
// screens: "My company" as owner (desktop and phone) and as member (desktop), and the landing
// signed out (phone). The token leaves the address at once and rides no API request's Referer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { active, apiCall, axeEveryWay, consoleUser, createAccount, isActive, launchBrowser, LOCALES, messagesByLocale, setStorage, settled, suite, tabTo, uniqueMail, VIEWPORTS, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = messagesByLocale();
const PASSWORD = 'Ciam-Org-2026!';

/** Tabs to `selector` and types `text` there. */
async function typeAt(page, selector, text) {
  await tabTo(page, selector);
  await page.keyboard.type(text);
  assert.equal(await page.evaluate(() => document.activeElement.value), text, `${selector} holds what was typed`);
}

/** An active organization whose owner is a new customer: asked for by them, approved by `operator`. */
async function organization(L, operator) {
  const owner = await createAccount(ctx.server, { account: uniqueMail(`org-owner-${L.toLowerCase()}`), password: PASSWORD });
  const names = { nameZh: `示例公司${L}`, nameEn: `Example ${L} Ltd` };
  const asked = await apiCall(ctx.server.base, 'POST', '/org/requests', names, owner.token);
  assert.equal(asked.status, 201, `request: ${JSON.stringify(asked.json)}`);
  const ok = await apiCall(ctx.server.base, 'POST', `/admin/organizations/${asked.json.orgId}/approve`, { reason: 'e2e: my company' }, operator.token);
  assert.equal(ok.status, 200, `approve: ${JSON.stringify(ok.json)}`);
  return { owner, orgId: asked.json.orgId, name: L === 'zh-CN' ? names.nameZh : names.nameEn };
}

/** The invitation link mailed to `to` (the dev outbox), waiting for it up to 10 s. */
async function invitationLink(to) {
  for (let i = 0; i < 100; i++) {
    const hit = (await ctx.server.outbox()).find((e) => e.to === to && e.purpose === 'orgInvitation');
    const link = hit && /https?:\/\/\S+\/org\/invitation\?token=[A-Za-z0-9_-]+/.exec(hit.text)?.[0];
    if (link) return link;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`no invitation for ${to} in the outbox`);
}

let operator;

for (const L of LOCALES) {
  describe(`My company and an invitation (${L})`, { skip }, () => {
    const t = messages[L];
    it('an owner invites a colleague by mail; the colleague signs up from the link and lands as a member', async () => {
      operator ??= await consoleUser(ctx.server, 'operator', 'org-e2e');
      const { owner, orgId, name } = await organization(L, operator);
      const colleague = uniqueMail(`org-colleague-${L.toLowerCase()}`);

      // The owner, in "My company", by keyboard: the navigation's link, the invitation's form.
      const page = await ctx.browser.page();
      await page.setViewportSize(VIEWPORTS[0]);
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: owner.token, lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/info`);
      await settled(page);
      await tabTo(page, `.personal-bar a[href="/${L}/personal/company"]`);
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/${L}/personal/company`);
      await page.locator('[data-testid="org-invite-form"]').waitFor();
      assert.equal(await page.locator('[data-testid="org-role"]').textContent(), t['org.role.owner']);
      assert.equal(await page.locator('h2#org-title').textContent(), name);
      await axeEveryWay(page, `My company as owner (${L})`, VIEWPORTS, { restore: VIEWPORTS[0] });
      const F = '[data-testid="org-invite-form"]';
      await typeAt(page, `${F} [name="to"]`, colleague);
      await tabTo(page, `${F} select[name="role"]`);
      assert.equal(await page.locator(`${F} select[name="role"]`).inputValue(), 'member', 'an invitation is for a member unless changed');
      await page.keyboard.press('Tab');
      assert.ok(await isActive(page, `${F} button[type="submit"]`), `Tab from the role: ${await active(page)}`);
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="org-invitation"][data-status="pending"]').waitFor();
      assert.match(await page.locator('[data-testid="org-invitations-said"]').textContent(), /\*\*\*/, 'the sent invitation is said, the address masked');

      // The colleague, in a browser of their own, from the mail.
      const link = await invitationLink(colleague);
      assert.ok(link.includes(`/${L}/org/invitation?token=`), `the link is in the inviter's language: ${link}`);
      const token = new URL(link).searchParams.get('token');
      const other = await launchBrowser({ locale: L });
      try {
        const p = await other.page();
        await p.setViewportSize(VIEWPORTS[0]);
        // The API's requests and any to another origin (none are made): never the token in a
        // Referer. (The page's own first requests for its scripts, same origin, carry the address
        // it was opened at, as for any page, until the landing replaces it.)
        const referers = [];
        p.on('request', (r) => {
          const ref = r.headers().referer;
          if (ref && (r.url().includes('/ciam/v1/') || !r.url().startsWith(ctx.server.base))) referers.push(`${r.url()} <- ${ref}`);
        });
        await p.goto(link.replace(/^https?:\/\/[^/]+/, ctx.server.base));
        await p.locator('[data-testid="org-invitation"][data-state="signedOut"]').waitFor();
        assert.equal(where(p), `/${L}/org/invitation`, 'the token leaves the address at once');
        assert.equal(await p.evaluate(() => sessionStorage.getItem('ciam_org_invitation')), token, 'kept in this tab');
        assert.equal(await p.evaluate(() => document.querySelector('meta[name="referrer"]')?.content), 'no-referrer');
        assert.equal(await p.locator('h1').textContent(), t['org.landing.heading']);
        // The small screens at one width each (light and dark), to keep the file well under a minute.
        await axeEveryWay(p, `invitation landing, signed out (${L})`, [VIEWPORTS[1]], { restore: VIEWPORTS[0] });

        await tabTo(p, '[data-testid="invitation-signup"]');
        await p.keyboard.press('Enter');
        await p.waitForURL(`**/${L}/passport/register`);
        const R = 'form[data-testid="register"]';
        await typeAt(p, `${R} [name="account"]`, colleague);
        await tabTo(p, `${R} [data-testid="send-code"]`);
        await p.keyboard.press('Enter');
        const code = await ctx.server.codeFor(colleague, 'register');
        await p.waitForFunction((sel) => document.activeElement === document.querySelector(sel), `${R} [name="code"]`, { timeout: 10_000 });
        await p.keyboard.type(code);
        await typeAt(p, `${R} [name="userName"]`, `o${Date.now().toString(36)}`);
        await typeAt(p, `${R} [name="company"]`, 'Example Ltd');
        await tabTo(p, `${R} [name="country"]`);
        if ((await p.locator(`${R} [name="country"]`).inputValue()) === '') await p.keyboard.press('ArrowDown');
        await typeAt(p, `${R} [name="password"]`, PASSWORD);
        await typeAt(p, `${R} [name="confirmPassword"]`, PASSWORD);
        await tabTo(p, `${R} [name="acceptTerms"]`);
        await p.keyboard.press('Space');
        await tabTo(p, `${R} button[type="submit"]`);
        await p.keyboard.press('Enter');

        // Sign-in, prefilled with the new account, the focus on the password.
        await p.waitForURL(`**/${L}/passport/signin`);
        const S = 'form[data-testid="signin-password"]';
        await p.waitForFunction((sel) => document.activeElement === document.querySelector(sel), `${S} [name="password"]`, { timeout: 10_000 });
        await p.keyboard.type(PASSWORD);
        await p.keyboard.press('Enter');

        // Back to the landing, accepted, and in "My company" on that organization.
        await p.waitForURL((u) => u.pathname === `/${L}/personal/company` && u.searchParams.get('org') === orgId, { timeout: 20_000 });
        await p.locator('[data-testid="org-joined"]').waitFor();
        assert.ok((await p.locator('[data-testid="org-joined"]').textContent()).includes(name));
        assert.equal(await p.locator('[data-testid="org-role"]').textContent(), t['org.role.member']);
        await p.locator('[data-testid="org-read-only"]').waitFor();
        assert.equal(await p.locator('[data-testid="org-invite-form"]').count(), 0, 'a member manages nothing');
        assert.equal(await p.evaluate(() => sessionStorage.getItem('ciam_org_invitation')), null, 'the token is forgotten once used');
        await axeEveryWay(p, `My company as member (${L})`, [VIEWPORTS[0]]);
        assert.deepEqual(referers.filter((r) => r.includes(token)), [], 'no API request carried the token in its Referer');
        assert.deepEqual(other.errors, [], 'no page error');
      } finally {
        await other.close();
      }

      // The link used, opened by someone else (the owner, signed in): a page of its own.
      await page.goto(link.replace(/^https?:\/\/[^/]+/, ctx.server.base));
      await page.locator('[data-testid="invitation-refused"]').waitFor();
      assert.equal(await page.locator('[data-testid="invitation-refused"]').getAttribute('data-reason'), 'ORG_INVITATION_USED');
      assert.equal(await page.locator('h1').textContent(), t['org.landing.used']);
      assert.equal(where(page), `/${L}/org/invitation`);

      // The owner's members list now holds the colleague as a member.
      const detail = await apiCall(ctx.server.base, 'GET', `/org/${orgId}`, undefined, owner.token);
      assert.deepEqual(detail.json.members.map((x) => x.role).sort(), ['member', 'owner']);
    });
  });
}
