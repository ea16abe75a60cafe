// Passkeys end to end (issue 13, docs/passkeys-design.md §5.1): real Chromium with a CDP virtual
// authenticator (resident keys, user verification) against `ciam serve` on http://localhost
// (a browser refuses an IP address as the RP ID), on SQLite and on DynamoDB Local, in both
// languages: add a passkey in the security centre, sign out, sign in with the button, sign in
// through conditional mediation (the account field's autofill), sign in inside a partner's frame
// that allows `publickey-credentials-get` (and see no button in one that does not), sign in from a
// partner's serviceUrl through consent to a ticket that verifies, sign in through the OpenID Connect flow
// with `openid-client` (the id_token's amr), use the passkey as the two-factor step, remove it
// and be refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as client from 'openid-client';
import { apiCall, axeEveryRule, hostPage, base32, createAccount, LOCALES, requirements, ROOT, setStorage, settled, storage, suite, totp, uniqueMail, virtualAuthenticator } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Passkey-2026!';

// ---- the browser side ----------------------------------------------------------------------------

/**
 * Records the `mediation` of every `navigator.credentials.get` (sessionStorage `e2e-mediation`) and
 * lets a test turn conditional mediation off (localStorage `e2e-conditional` = `off`): with the
 * virtual authenticator's UI off, Chromium answers a pending conditional request by itself, so the
 * button scenarios need it off to prove the button signed in.
 */
function instrument() {
  // A third-party frame (the embedded sign-in) may not touch storage: its requests go unrecorded.
  const tryStorage = (f) => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  const P = window.PublicKeyCredential;
  if (P) {
    const available = P.isConditionalMediationAvailable?.bind(P);
    P.isConditionalMediationAvailable = async () =>
      tryStorage(() => localStorage.getItem('e2e-conditional')) === 'off' ? false : available ? available() : false;
  }
  const get = navigator.credentials.get.bind(navigator.credentials);
  navigator.credentials.get = (options) => {
    tryStorage(() => {
      const log = JSON.parse(sessionStorage.getItem('e2e-mediation') ?? '[]');
      log.push(options?.mediation ?? 'optional');
      sessionStorage.setItem('e2e-mediation', JSON.stringify(log));
    });
    return get(options);
  };
}

/** axe with every rule, light and dark, on the page as it is now. */
async function expectAccessibleInBothSchemes(page, label) {
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeEveryRule(page), [], `axe (every tag, ${colorScheme}) on ${label}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const mediations = async (page) => JSON.parse((await page.evaluate(() => sessionStorage.getItem('e2e-mediation'))) ?? '[]');
const clearMediations = (page) => page.evaluate(() => sessionStorage.removeItem('e2e-mediation'));

/**
 * After a sign-in for a partner: Allow on the consent screen if it is shown (an earlier Allow of
 * these scopes is remembered), then the browser lands where `back` says.
 */
async function allowIfAsked(page, back) {
  const allow = page.locator('[data-testid="authorize-allow"]');
  await Promise.race([allow.waitFor(), page.waitForURL(back, { timeout: 20_000 })]).catch((e) => {
    throw new Error(`${e.message} at ${page.url()}`);
  });
  if (!back(new URL(page.url()))) {
    await allow.click();
    await page.waitForURL(back, { timeout: 20_000 });
  }
}

/** Waits until the SPA holds a session token; answers it. */
async function signedIn(page) {
  await page.waitForFunction(() => !!localStorage.getItem('ciam_token'), null, { timeout: 20_000 });
  return storage(page, 'ciam_token');
}

async function signOut(page, base, L) {
  if (!page.url().startsWith(base)) await page.goto(`${base}/ciam/dev/outbox`);
  await page.evaluate(() => localStorage.removeItem('ciam_token'));
  await page.goto(`${base}/${L}/passport/signin`);
  await settled(page);
}

/** The sign-in screen with conditional mediation off or on. */
async function signInScreen(page, base, L, { conditional }) {
  await page.evaluate((on) => localStorage.setItem('e2e-conditional', on ? 'on' : 'off'), conditional);
  await clearMediations(page);
  await page.goto(`${base}/${L}/passport/signin`);
  await settled(page);
}

// ---- the partner: a serviceUrl on 127.0.0.1 that records what it gets ------------------------------

const partner = { server: null, origin: '', hits: [] };
before(async () => {
  partner.server = createServer((req, res) => {
    const url = new URL(req.url, partner.origin || 'http://127.0.0.1');
    if (url.pathname === '/host' || url.pathname === '/host-allow') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage({ allow: url.pathname === '/host-allow' }));
      return;
    }
    partner.hits.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>partner</title><h1>Partner</h1>');
  });
  await new Promise((r) => partner.server.listen(0, '127.0.0.1', r));
  partner.origin = `http://127.0.0.1:${partner.server.address().port}`;
});
after(() => partner.server?.close());

// ---- the flows, on one engine ------------------------------------------------------------------

function passkeyFlows(engine, { dynamodb = false } = {}) {
  describe(`passkeys on ${engine}`, { skip: requirements({ dynamodb }) }, () => {
    const { ctx } = suite({ dynamodb, server: { localhost: true } });
    const slug = engine.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const app = { appId: '', secret: '', serviceUrl: '', redirectUri: '' };
    let page = null;
    let authenticator = null;

    before(async () => {
      // The partner app: a serviceUrl (tickets) and a redirect URI (OpenID Connect) on this server.
      app.serviceUrl = `${partner.origin}/cb`;
      app.redirectUri = `${partner.origin}/oidc-cb`;
      const created = ctx.server.registerApp({
        name: { 'zh-CN': '通行密钥伙伴', 'en-US': 'Passkey Partner' },
        serviceUrls: [app.serviceUrl, app.redirectUri],
        frameOrigins: [partner.origin],
        scopes: ['nickname', 'email'],
      });
      app.appId = created.app.appId;
      app.secret = created.appSecret;
      page = await ctx.browser.page();
      await page.addInitScript(instrument);
      authenticator = await virtualAuthenticator(page);
    });

    for (const L of LOCALES) {
      describe(L, () => {
        const t = messages[L];
        const user = { account: '', token: '', id: '' };

        it('adds a passkey in the security centre', async () => {
          const { base } = ctx.server;
          const made = await createAccount(ctx.server, { account: uniqueMail(`pk-${slug}-${L.toLowerCase()}`), password: PASSWORD });
          Object.assign(user, made);
          user.id = (await apiCall(base, 'GET', '/auth/info', undefined, made.token)).json.userId;
          await setStorage(page, base, { umi_locale: L, ciam_token: made.token, lastActionTime: String(Date.now()), 'e2e-conditional': 'off' });
          await authenticator.renew();
          await page.goto(`${base}/${L}/personal/secure#passkeys`);
          await settled(page);
          const before = (await authenticator.credentials()).length;
          await page.getByTestId('passkey-add').click();
          await page.getByTestId('passkey').first().waitFor();
          assert.equal(await page.getByTestId('passkey').count(), 1);
          const creds = await authenticator.credentials();
          assert.equal(creds.length, before + 1, 'the authenticator holds a new credential');
          assert.ok(creds.at(-1).isResidentCredential, 'a discoverable credential');
          assert.equal(Buffer.from(creds.at(-1).userHandle, 'base64').toString('hex'), user.id, 'its user handle is the userId');
          const list = await apiCall(base, 'GET', '/auth/passkeys', undefined, made.token);
          assert.equal(list.json.passkeys.length, 1);
          await expectAccessibleInBothSchemes(page, 'the security centre with a passkey');
        });

        it('signs in with the passkey button', async () => {
          const { base } = ctx.server;
          await signOut(page, base, L);
          await signInScreen(page, base, L, { conditional: false });
          await page.getByTestId('signin-passkey').waitFor();
          await expectAccessibleInBothSchemes(page, 'the sign-in screen with the passkey button');
          await page.getByTestId('signin-passkey').click();
          user.token = await signedIn(page);
          assert.deepEqual(await mediations(page), ['optional'], 'one modal request, no conditional one');
          const info = await apiCall(base, 'GET', '/auth/info', undefined, user.token);
          assert.equal(info.json.userId, user.id);
        });

        it('signs in through conditional mediation (the account field offers the passkey)', async () => {
          const { base } = ctx.server;
          await signOut(page, base, L);
          await signInScreen(page, base, L, { conditional: true });
          const token = await signedIn(page);
          assert.ok((await mediations(page)).includes('conditional'), 'signed in by the conditional request');
          assert.equal((await apiCall(base, 'GET', '/auth/info', undefined, token)).json.userId, user.id);
          await page.evaluate(() => localStorage.setItem('e2e-conditional', 'off'));
        });

        it("signs in inside the partner's frame when it allows publickey-credentials-get; else no button", async () => {
          const { base } = ctx.server;
          const src = `${base}/${L}/embedded/signin?appId=${app.appId}&serviceUrl=${encodeURIComponent(app.serviceUrl)}&validateMsg=notice`;
          await page.goto(`${partner.origin}/host#${encodeURIComponent(src)}`);
          const frame = page.frameLocator('iframe');
          await frame.locator('form[data-testid="signin-password"]').waitFor();
          await sleep(500);
          assert.equal(await frame.getByTestId('signin-passkey').count(), 0, 'no allow attribute: no passkey button');

          await page.goto(`${partner.origin}/host-allow#${encodeURIComponent(src)}`);
          await clearMediations(page);
          await frame.getByTestId('signin-passkey').click();
          await frame
            .locator('[data-testid="embedded-consent"]')
            .waitFor()
            .catch(async (e) => {
              const note = await frame.getByTestId('passkey-note').textContent().catch(() => '?');
              const got = JSON.stringify(await page.evaluate(() => window.__messages));
              throw new Error(`${e.message}\nnote: ${note}\nmessages: ${got}`);
            });
          await frame.locator('[data-testid="embedded-allow"]').click();
          await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ciam:ticket'));
          const ticket = (await page.evaluate(() => window.__messages)).find((m) => m.data.type === 'ciam:ticket');
          assert.equal(ticket.origin, base);
          const q = new URLSearchParams({ cTicket: ticket.data.cTicket, serviceUrl: app.serviceUrl });
          const res = await fetch(`${base}/ciam/v1/auth/login/token/verify?${q}`, {
            headers: { authorization: `Basic ${Buffer.from(`${app.appId}:${app.secret}`).toString('base64')}` },
          });
          const claims = await res.json();
          assert.equal(res.status, 200, JSON.stringify(claims));
          assert.equal(claims.userId, user.id);
        });

        it("signs in from a partner's serviceUrl through consent to a ticket that verifies", async () => {
          const { base } = ctx.server;
          await signOut(page, base, L);
          await page.evaluate(() => localStorage.setItem('e2e-conditional', 'off'));
          await page.goto(`${base}/${L}/passport/authorize?appId=${app.appId}&serviceUrl=${app.serviceUrl}`);
          await page.waitForURL((u) => u.pathname === `/${L}/passport/signin`);
          await settled(page);
          const seen = partner.hits.length;
          await page.getByTestId('signin-passkey').click();
          await allowIfAsked(page, (u) => u.href.startsWith(`${app.serviceUrl}?cTicket=`));
          const ticket = new URL(page.url()).searchParams.get('cTicket');
          assert.ok(partner.hits.length > seen, 'the partner got the browser');
          const q = new URLSearchParams({ appId: app.appId, appSecret: app.secret, cTicket: ticket, serviceUrl: app.serviceUrl });
          const verified = await fetch(`${base}/ciam/v1/auth/login/token/verify?${q}`);
          const claims = await verified.json();
          assert.equal(verified.status, 200, JSON.stringify(claims));
          assert.equal(claims.userId, user.id);
          assert.equal(claims.email, user.account);
        });

        it('signs in by passkey through the OpenID Connect flow (openid-client); the id_token says hwk', async () => {
          const { base } = ctx.server;
          await signOut(page, base, L);
          const config = await client.discovery(new URL(`${base}/ciam/v1/oidc`), app.appId, app.secret, undefined, {
            execute: [client.allowInsecureRequests],
          });
          const pkceCodeVerifier = client.randomPKCECodeVerifier();
          const state = client.randomState();
          const nonce = client.randomNonce();
          const url = client.buildAuthorizationUrl(config, {
            redirect_uri: app.redirectUri,
            scope: 'openid email',
            code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
            code_challenge_method: 'S256',
            state,
            nonce,
            ui_locales: L,
          });
          await page.goto(url.href);
          await page.waitForURL((u) => u.pathname === `/${L}/passport/signin`);
          await settled(page);
          await page.getByTestId('signin-passkey').click();
          await allowIfAsked(page, (u) => u.href.startsWith(`${app.redirectUri}?`));
          const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
            pkceCodeVerifier,
            expectedState: state,
            expectedNonce: nonce,
          });
          const claims = tokens.claims();
          assert.equal(claims.sub, user.id);
          assert.deepEqual(claims.amr, ['hwk', 'user', 'mfa'], 'a device-bound passkey with user verification');
        });

        it('is the two-factor step after the password when two-factor is on', async () => {
          const { base } = ctx.server;
          const token = (await apiCall(base, 'POST', '/auth/login/password', { account: user.account, password: PASSWORD })).json.token;
          const uri = await apiCall(base, 'GET', '/auth/totp/url', undefined, token);
          const key = base32(new URL(uri.json.url).searchParams.get('secret'));
          const enabled = await apiCall(base, 'POST', '/auth/totp/enable', { code: totp(key, Math.floor(Date.now() / 30_000)) }, token);
          assert.equal(enabled.status, 200, JSON.stringify(enabled.json));

          await signOut(page, base, L);
          await signInScreen(page, base, L, { conditional: false });
          const another = page.getByTestId('another-account');
          if (await another.isVisible()) await another.click();
          const form = page.locator('form[data-testid="signin-password"]');
          await form.locator('[name="account"]').fill(user.account);
          await form.locator('[name="password"]').fill(PASSWORD);
          await form.locator('button[type="submit"]').click();
          const modal = page.getByRole('dialog', { name: t['mfa.title'] });
          await modal.waitFor();
          await modal.getByTestId('mfa-passkey').click();
          user.token = await signedIn(page);
          assert.equal((await apiCall(base, 'GET', '/auth/info', undefined, user.token)).json.userId, user.id);
        });

        it('removes the passkey; the authenticator still offers it and the sign-in is refused', async () => {
          const { base } = ctx.server;
          await page.goto(`${base}/${L}/personal/secure#passkeys`);
          await settled(page);
          await page.getByTestId('passkey-remove').first().click();
          await page.getByTestId('passkey-remove-confirm').click();
          await page.getByTestId('passkey').first().waitFor({ state: 'detached' });
          assert.equal((await apiCall(base, 'GET', '/auth/passkeys', undefined, user.token)).json.passkeys.length, 0);

          await signOut(page, base, L);
          await signInScreen(page, base, L, { conditional: false });
          await page.getByTestId('signin-passkey').click();
          const note = page.getByTestId('passkey-note');
          await note.filter({ hasText: t['error.PASSKEY_NOT_FOUND'] }).waitFor();
          await sleep(300);
          assert.equal(await storage(page, 'ciam_token'), null, 'not signed in');
        });
      });
    }
  });
}

passkeyFlows('SQLite');
passkeyFlows('DynamoDB Local', { dynamodb: true });
