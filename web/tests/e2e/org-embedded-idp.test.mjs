// The embedded sign-in's company button all the way through (issue 35), real `ciam serve`,
// Chromium and `oidc-provider` as the company's identity provider (idp.mjs: its development login
// and consent pages), both languages: a partner's page frames the sign-in; the company's owner types
// their mail at the company's domain (routed, required), presses "Continue with <company> (opens
// a new window)"; the popup goes to the provider, signs in there, comes back to Ciam and hands
// the way back to the frame, and closes; the frame redeems it with its bind, shows the consent
// step, and on Allow posts `ciam:ticket` to the partner's page, whose backend verifies the ticket
// for that very account. The partner's page never navigates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, framingSite, launchBrowser, LOCALES, suite } from './harness.mjs';
import { signInAtIdpPage, startIdp } from './idp.mjs';

const PASSWORD = 'Ciam-Org-2026!';
const CLIENT_ID = 'ciam-org-e2e';
const CLIENT_SECRET = 'org-secret-of-the-e2e-test-0123456789';
// A public URL (the callback the provider is told): pages at http://localhost:<port>.
const { skip, ctx } = suite({ server: { localhost: true } });

let idp = null;
let site = null;

async function startProvider() {
  // The login typed is the person's mail.
  idp = await startIdp({
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${ctx.server.base}/ciam/v1/auth/org/callback`] }],
    accounts: (login) => ({ email: login, email_verified: true }),
  });
}

async function partnerSite() {
  site = await framingSite(ctx.server, { 'zh-CN': `公司登录嵌入${Date.now()}`, 'en-US': `Company frame ${Date.now()}` });
}

describe("the embedded sign-in's company sign-in, through a real provider", { skip }, () => {
  before(async () => {
    await startProvider();
    await partnerSite();
  });
  after(async () => {
    await site?.close();
    await idp?.stop();
  });

  for (const L of LOCALES) {
    it(`signs in through the popup and posts the ticket from the frame (${L})`, async () => {
      const tag = `${L === 'zh-CN' ? 'z' : 'e'}${Date.now().toString(36)}`;
      const domain = `idp-${tag}.example`;
      // The owner has a mail at the company's domain (signed up before it was routed).
      const boss = await createAccount(ctx.server, { account: `boss-${tag}@${domain}`, password: PASSWORD });
      const orgId = ctx.server.admin('org-create', boss.account, '--name-en', `Idp Corp ${tag}`, '--name-zh', `身份集团${tag}`, '--reason', 'e2e: issue 35');
      ctx.server.admin('org-sign-in', domain, '--org', orgId, '--name-en', `Idp Corp ${tag}`, '--name-zh', `身份集团${tag}`, '--issuer', idp.issuer,
        '--client-id', CLIENT_ID, '--secret', CLIENT_SECRET, '--required', '--verify', '--reason', 'e2e: issue 35');

      const browser = await launchBrowser({ locale: L });
      try {
        const page = await browser.page();
        const src = `${ctx.server.base}/${L}/embedded/signin?appId=${site.appId}&validateMsg=notice&serviceUrl=${site.serviceUrl}`;
        await page.goto(`${site.origin}/#${encodeURIComponent(src)}`);
        const frame = page.frameLocator('iframe');
        const account = frame.locator('form[data-testid="signin-password"] [name="account"]');
        await account.waitFor({ timeout: 15_000 });
        await account.fill(boss.account);
        const button = frame.getByTestId('org-continue');
        await button.waitFor({ timeout: 10_000 });
        const [popup] = await Promise.all([page.waitForEvent('popup', { timeout: 10_000 }), button.click()]);

        // At the provider, in the popup: its login, then its consent.
        await signInAtIdpPage(popup, idp.issuer, boss.account);
        // Back at Ciam, the popup hands over and closes.
        if (!popup.isClosed()) await popup.waitForEvent('close', { timeout: 20_000 });

        // The frame redeemed it: the consent step, then the ticket on Allow.
        await frame.getByTestId('embedded-consent').waitFor({ timeout: 20_000 });
        await frame.getByTestId('embedded-allow').click();
        await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ciam:ticket'), null, { timeout: 20_000 });
        const messages = await page.evaluate(() => window.__messages);
        assert.deepEqual(messages.filter((m) => m.data?.type === 'ciam:error'), [], 'no refusal');
        const ticket = messages.find((m) => m.data.type === 'ciam:ticket');
        assert.equal(ticket.origin, ctx.server.base);
        assert.equal(ticket.data.serviceUrl, site.serviceUrl);
        assert.ok(page.url().startsWith(site.origin), 'the partner page never left');

        // The partner's backend verifies it: the company's owner.
        const verify = new URL(`${ctx.server.base}/ciam/v1/auth/login/token/verify`);
        verify.searchParams.set('cTicket', ticket.data.cTicket);
        verify.searchParams.set('serviceUrl', site.serviceUrl);
        const res = await fetch(verify, { headers: { authorization: `Basic ${Buffer.from(`${site.appId}:${site.secret}`).toString('base64')}` } });
        const body = await res.json();
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.email, boss.account, JSON.stringify(body));
        assert.equal(body.nickname, boss.userName);
      } finally {
        await browser.close();
      }
    });
  }
});
