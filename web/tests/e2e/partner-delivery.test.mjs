// Issue 23: `ciam serve` delivers a real cause's event to the example partner app
// (examples/partner-app, POST /webhooks verified with the `standardwebhooks` npm library,
// docs/partners.md §10). The example is registered as an app (`ciam admin apps create`) with a
// webhook endpoint on it (the console's routes, as a console admin with a reason; plain http to
// 127.0.0.1 is allowed by `ciam serve` without --webhooks-strict) and started with the endpoint's `whsec_` secret. In Chromium a user signs in
// through the example's "Sign in with Ciam" and allows it, then changes the nickname in the
// personal centre: the example logs the verified `user.updated` with the new nickname, once. A
// replay through the console's route sends the same webhook-id again: the example logs a duplicate
// and does not apply it twice. The user revokes the app in the personal centre: `consent.revoked`
// arrives, and a later change delivers nothing more (another user who still allows the app is
// heard after it: the worker did run). The example's log never shows a signature failure.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiCall, consoleUser, consoleWebhooks, createAccount, freePort, requirements, ROOT, settled, suite, uniqueMail } from './harness.mjs';

const L = 'zh-CN'; // one locale is enough for the delivery; the example signs in in zh-CN
const t = JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${L}.json`), 'utf8'));
/** Every kind there is (docs/partners.md §10): the endpoint hears all, so "nothing more" means nothing. */
const KINDS = [
  'user.updated',
  'user.mail_changed',
  'user.phone_changed',
  'user.deactivated',
  'user.suspended',
  'user.reactivated',
  'session.ended',
  'consent.revoked',
  'two_factor.changed',
];

/** The example partner on `port`, signing in against `base` and receiving events with `secret`. */
async function startExample(base, port, app, secret) {
  const child = spawn(process.execPath, [join(ROOT, 'examples/partner-app/server.mjs')], {
    env: { ...process.env, CIAM_URL: base, APP_ID: app.appId, APP_SECRET: app.secret, CIAM_WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ex = {
    base: `http://127.0.0.1:${port}`,
    log: '',
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
    /** The log lines that contain `text`. */
    lines(text) {
      return ex.log.split('\n').filter((l) => l.includes(text));
    },
    /** Waits (15 s at most) until the log has a line with `text`; answers the first such line. */
    async waitFor(text) {
      for (let i = 0; i < 300 && !ex.log.includes(text); i++) await sleep(50);
      assert.ok(ex.log.includes(text), `the example's log has no "${text}":\n${ex.log}`);
      return ex.lines(text)[0];
    },
  };
  child.stdout.on('data', (c) => (ex.log += c));
  child.stderr.on('data', (c) => (ex.log += c));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start:\n${ex.log}`)), 15_000);
      child.stdout.on('data', () => {
        if (ex.log.includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`the example exited (${code}):\n${ex.log}`)));
    });
  } catch (e) {
    ex.stop();
    throw e;
  }
  return ex;
}

describe('ciam serve delivers real events to the example partner (standardwebhooks)', { skip: requirements() }, () => {
  const { ctx } = suite({ locale: L });
  const app = { appId: '', secret: '', serviceUrl: '', name: '' };
  /** The app's webhooks through the console's routes, as a console admin. */
  let hooks = null;
  let endpointId = '';
  let example = null;
  let page = null;
  const user = { account: '', password: '', userName: '', userId: '' };
  /** The webhook-id of the nickname change's user.updated. */
  let updatedId = '';

  before(async () => {
    const { base } = ctx.server;
    const port = await freePort();
    app.serviceUrl = `http://127.0.0.1:${port}/callback`;
    app.name = `示例伙伴${Date.now()}`;
    const created = ctx.server.registerApp({ name: { 'zh-CN': app.name, 'en-US': `Example partner ${Date.now()}` }, serviceUrls: [app.serviceUrl], scopes: ['nickname', 'company'] });
    app.appId = created.app.appId;
    app.secret = created.appSecret;
    hooks = consoleWebhooks(ctx.server, await consoleUser(ctx.server, 'admin', 'delivery-admin'), app.appId, 'e2e: the example partner hears its users');
    // The example's events endpoint, registered before it starts: its secret is shown once, here.
    const hook = await hooks.create({ url: `http://127.0.0.1:${port}/webhooks`, events: KINDS, description: 'the example partner' });
    assert.equal(hook.status, 201, `create webhook: ${JSON.stringify(hook.json)}`);
    assert.match(hook.json.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    endpointId = hook.json.endpoint.endpointId;
    example = await startExample(base, port, app, hook.json.secret);
    page = await ctx.browser.page();
  });
  after(() => example?.stop());

  /** The personal centre in Chromium: the display name (the nickname) changed and saved. */
  async function changeNickname(nickname) {
    await page.goto(`${ctx.server.base}/${L}/personal/info`);
    await settled(page);
    await page.locator('[data-testid="profile-form-open"]').click();
    const form = page.locator('[data-testid="profile-form"]');
    await form.locator('[name="displayName"]').fill(nickname);
    await form.locator('button[type="submit"]').click();
    await page.locator('[data-testid="profile-status"]', { hasText: t['info.saved'] }).waitFor();
  }

  /**
   * The endpoint's delivery log (the console's route, newest first) once it has `n` attempts (the worker
   * writes an attempt's entry after the answer, so a moment after the example logged it).
   */
  const deliveries = async (n) => {
    let list = [];
    for (let i = 0; i < 100; i++) {
      const got = await hooks.deliveries(endpointId);
      assert.equal(got.status, 200, JSON.stringify(got.json));
      list = got.json.deliveries;
      if (list.length >= n) break;
      await sleep(50);
    }
    assert.equal(list.length, n, `the delivery log: ${JSON.stringify(list)}`);
    return list;
  };

  it('a user allows the example in Chromium, changes the nickname in the personal centre: the verified user.updated with it, once', async () => {
    Object.assign(user, await createAccount(ctx.server, { account: uniqueMail('delivery-user'), company: 'Example Co' }));
    // Sign in through the example's link and Allow on Ciam's consent screen.
    await page.goto(`${example.base}/`);
    await page.locator('#signin').click();
    const form = page.locator('form[data-testid="signin-password"]');
    await form.waitFor();
    await form.locator('[name="account"]').fill(user.account);
    await form.locator('[name="password"]').fill(user.password);
    await form.locator('button[type="submit"]').click();
    await page.locator('[data-testid="authorize-allow"]').click();
    await page.waitForURL(`${example.base}/callback?*`);
    await page.locator('#who').waitFor();
    user.userId = await page.locator('[data-claim="userId"]').textContent();
    assert.match(user.userId, /^[0-9a-f]{32}$/);
    // Signing in and allowing announce nothing.
    await sleep(300);
    assert.equal(example.lines('verified event').length, 0, example.log);

    const nickname = `林${Date.now().toString(36)}`;
    await changeNickname(nickname);
    const line = await example.waitFor(`verified event user.updated `);
    const m = /verified event user\.updated (msg_[0-9a-f]{24}) for ([0-9a-f]{32})/.exec(line);
    assert.ok(m, line);
    updatedId = m[1];
    assert.equal(m[2], user.userId);
    // What the example applies: the new nickname, and only what changed and the consent covers.
    const applied = await example.waitFor(`partner-app: updating ${user.userId} (user.updated, ${updatedId}): `);
    assert.deepEqual(JSON.parse(applied.slice(applied.indexOf('): ') + 3)), { nickname });
    await sleep(500);
    assert.equal(example.lines('verified event').length, 1, example.log);
    assert.equal(example.lines(updatedId).length, 2, 'verified and applied once, no duplicate');
    // The delivery log: one attempt, delivered with the example's 204.
    const log = await deliveries(1);
    assert.deepEqual(
      log.map((d) => [d.eventId, d.type, d.userId, d.attempt, d.status, d.outcome]),
      [[updatedId, 'user.updated', user.userId, 1, 204, 'delivered']],
    );
  });

  it('a replay through the console\'s route sends the same webhook-id: the example logs a duplicate and applies nothing twice', async () => {
    assert.ok(updatedId, 'the first step ran');
    const r = await hooks.replay(endpointId, { eventId: updatedId });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.eventIds, [updatedId]);
    await example.waitFor(`partner-app: duplicate ${updatedId} ignored`);
    await sleep(300);
    assert.equal(example.lines(`verified event user.updated ${updatedId}`).length, 1);
    assert.equal(example.lines(`partner-app: updating ${user.userId}`).length, 1, 'applied once');
    const log = await deliveries(2);
    assert.deepEqual(
      log.map((d) => [d.eventId, d.status, d.outcome]),
      [
        [updatedId, 204, 'delivered'],
        [updatedId, 204, 'delivered'],
      ],
      'the replay was sent and answered 204 (the example dedupes, it does not refuse)',
    );
  });

  it('the user revokes the app in the personal centre: consent.revoked arrives; a later change delivers nothing more', async () => {
    const { base } = ctx.server;
    await page.goto(`${base}/${L}/personal/info`);
    await settled(page);
    const row = page.locator(`[data-testid="consent"][data-app-id="${app.appId}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: t['info.consents.revokeFor'].replace('{app}', app.name) }).click();
    await page.getByTestId('consent-revoke-confirm').click();
    await page.locator('[data-testid="consents-none"]').waitFor();
    const line = await example.waitFor('verified event consent.revoked ');
    const m = /verified event consent\.revoked (msg_[0-9a-f]{24}) for ([0-9a-f]{32})/.exec(line);
    assert.ok(m, line);
    assert.equal(m[2], user.userId);
    assert.notEqual(m[1], updatedId);
    await example.waitFor(`partner-app: forgetting ${user.userId} (consent.revoked, ${m[1]})`);

    // A later change of the nickname, in the personal centre again: the app hears nothing of it.
    await changeNickname(`后来${Date.now().toString(36)}`);
    // Another user who still allows the app changes theirs (through the API the SPA calls): that
    // one is heard, so the worker ran after the revoked user's change.
    const other = await createAccount(ctx.server, { account: uniqueMail('delivery-other') });
    const otherId = (await apiCall(base, 'GET', '/auth/info', undefined, other.token)).json.userId;
    const allowed = await apiCall(base, 'POST', '/auth/login/token', { appId: app.appId, serviceUrl: app.serviceUrl }, other.token);
    assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
    const patched = await apiCall(base, 'PATCH', '/auth/info', { displayName: 'Other' }, other.token);
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    await example.waitFor(`partner-app: updating ${otherId} (user.updated, `);
    await sleep(500);
    assert.deepEqual(
      example.lines(`for ${user.userId}`).map((l) => l.split(' ')[2]),
      ['user.updated', 'consent.revoked'],
      `nothing more for the revoked user:\n${example.log}`,
    );
    // Two of the nickname change (the delivery and its replay), the revocation, the other user's.
    const log = await deliveries(4);
    assert.deepEqual(
      log.filter((d) => d.userId === user.userId).map((d) => d.type).sort(),
      ['consent.revoked', 'user.updated', 'user.updated'],
      'the log has nothing more for the revoked user either',
    );
    assert.ok(log.every((d) => d.status === 204 && d.outcome === 'delivered'), JSON.stringify(log));
  });

  it("the example's log never shows a signature failure or a refusal", () => {
    assert.equal(example.lines('refused').length, 0, example.log);
    assert.ok(example.lines('verified event').length >= 3, example.log);
    assert.ok(!/error/i.test(example.log), example.log);
  });
});
