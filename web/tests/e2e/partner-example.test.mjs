// The runnable example partner (examples/partner-app) end to end in Chromium: its "Sign in with
// Ciam" link, Ciam's sign-in and consent screens, the ticket on the example's callback verified
// server to server, and the example showing who signed in. Cancel comes back as cError.
// The same flow runs twice: `ciam serve` on SQLite, then on the official DynamoDB Local.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAccount, freePort, launchBrowser, requirements, ROOT, suite } from './harness.mjs';

/**
 * Registers the example as an app of `server` (`ciam admin apps create`, as its README says) and
 * starts it; returns it.
 */
async function startExample(server) {
  const base = server.base;
  const port = await freePort();
  const exampleBase = `http://127.0.0.1:${port}`;
  const created = server.registerApp({
    name: { 'zh-CN': `示例伙伴${Date.now()}`, 'en-US': `Example partner ${Date.now()}` },
    serviceUrls: [`${exampleBase}/callback`],
    scopes: ['nickname', 'company'],
  });
  const child = spawn(process.execPath, [join(ROOT, 'examples/partner-app/server.mjs')], {
    env: { ...process.env, CIAM_URL: base, APP_ID: created.app.appId, APP_SECRET: created.appSecret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const example = {
    base: exampleBase,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
  let log = '';
  child.stderr.on('data', (c) => (log += c));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start:\n${log}`)), 15_000);
      child.stdout.on('data', (c) => {
        log += c;
        if (log.includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`the example exited (${code}):\n${log}`)));
    });
  } catch (e) {
    example.stop();
    throw e;
  }
  return example;
}

/** From the example's home page through Ciam's sign-in to its consent screen. */
async function toConsent(page, server, example, user) {
  await page.goto(`${example.base}/`);
  await page.locator('#signin').click();
  const form = page.locator('form[data-testid="signin-password"]');
  await form.waitFor();
  assert.ok(page.url().startsWith(`${server.base}/zh-CN/passport/signin?`), page.url());
  await form.locator('[name="account"]').fill(user.account);
  await form.locator('[name="password"]').fill(user.password);
  await form.locator('button[type="submit"]').click();
  await page.locator('[data-testid="authorize"]').waitFor();
  assert.ok(page.url().startsWith(`${server.base}/zh-CN/passport/authorize?`), page.url());
}

/** The example partner's whole flow against a `ciam serve` on SQLite or on DynamoDB Local. */
function partnerFlow(name, { dynamodb = false } = {}) {
  describe(name, { skip: requirements({ dynamodb }) }, () => {
    const { ctx } = suite({ locale: 'zh-CN', dynamodb });
    let example = null;
    before(async () => {
      example = await startExample(ctx.server);
    });
    after(() => example?.stop());

    it('sign in, Allow, and the example shows who signed in (verified server to server)', async () => {
      const user = await createAccount(ctx.server, { company: 'Example Co' });
      const browser = await launchBrowser({ locale: 'zh-CN' });
      try {
        const page = await browser.page();
        await toConsent(page, ctx.server, example, user);
        await page.locator('[data-testid="authorize-allow"]').click();
        await page.waitForURL(`${example.base}/callback?*`);
        await page.locator('#who').waitFor();
        assert.equal(await page.locator('#who strong').textContent(), user.userName);
        assert.equal(await page.locator('[data-claim="company"]').textContent(), 'Example Co');
        assert.equal(await page.locator('[data-claim="email"]').count(), 0, 'only the allowed claims');

        // Consent is remembered: the next visit goes straight back with a new ticket.
        await page.goto(`${example.base}/`);
        await page.locator('#signin').click();
        await page.waitForURL(`${example.base}/callback?*`);
        await page.locator('#who').waitFor();
        assert.equal(await page.locator('#who strong').textContent(), user.userName);
      } finally {
        await browser.close();
      }
    });

    it('Cancel comes back to the example as cError=access_denied', async () => {
      const user = await createAccount(ctx.server);
      const browser = await launchBrowser({ locale: 'zh-CN' });
      try {
        const page = await browser.page();
        await toConsent(page, ctx.server, example, user);
        await page.locator('[data-testid="authorize-cancel"]').click();
        await page.waitForURL(`${example.base}/callback?*`);
        assert.equal(new URL(page.url()).searchParams.get('cError'), 'access_denied');
        await page.locator('#cancelled').waitFor();
      } finally {
        await browser.close();
      }
    });

    it('a replayed ticket is refused by the example (one validation per ticket)', async () => {
      const res = await fetch(`${example.base}/callback?cTicket=ST-not-a-real-ticket`);
      assert.equal(res.status, 401);
      assert.match(await res.text(), /TICKET_NOT_FOUND/);
    });
  });
}

partnerFlow('the example partner');
partnerFlow('the example partner on DynamoDB Local', { dynamodb: true });
