// The app page's webhooks (issue 23) end to end, both languages, against a real `ciam serve` in
// real Chromium with a receiver on 127.0.0.1 (`ciam serve` delivers to http loopback unless
// --webhooks-strict). The screen calls the console's routes (/admin/apps/{appId}/webhooks...) and
// every change asks for its reason. An admin of the console adds an endpoint with the keyboard
// alone, the reason included (the server's refusals of an http and a metadata URL said at the
// field, in the page's language), sees its whsec_ secret once; a customer who consented to the app changes the nickname and the
// receiver verifies the delivery with the Standard Webhooks reference library (npm
// `standardwebhooks`, not our code) and that secret (after a change of the events); the delivery log shows it; one event is
// replayed (same webhook-id) and a time range; the secret is rotated (the next delivery verifies
// with the new and the old secret until the end the page says); the endpoint is disabled (nothing
// more arrives) and removed; an endpoint answering 410 Gone shows disabled with that reason. axe
// with every rule on the section in each state. A console operator reads the endpoints and their
// log, with the "only administrators change" line and no button that changes anything.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { Webhook } from 'standardwebhooks';
import { apiCall, AXE_TAGS, consoleUser, consoleWebhooks, createAccount, LOCALES, ROOT, setStorage, settled, suite, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

/** A receiver on 127.0.0.1: records each POST (path, headers, body) and answers 200 "thanks <id>" (410 under /gone). */
const receiver = { server: null, base: '', got: [] };
before(async () => {
  if (skip) return;
  receiver.server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      receiver.got.push({ path: req.url, headers: req.headers, body });
      if (req.url.startsWith('/gone')) res.writeHead(410).end('gone');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`thanks ${req.headers['webhook-id']}`);
    });
  });
  await new Promise((r) => receiver.server.listen(0, '127.0.0.1', r));
  receiver.base = `http://127.0.0.1:${receiver.server.address().port}`;
});
after(() => receiver.server?.close());

/** What `path` received so far. */
const received = (path) => receiver.got.filter((g) => g.path === path);

/** Waits (15 s) until `path` has received `n` requests; answers them. */
async function receivedAtLeast(path, n) {
  for (let i = 0; i < 300 && received(path).length < n; i++) await sleep(50);
  const got = received(path);
  assert.ok(got.length >= n, `${path}: ${got.length} deliveries, expected ${n}`);
  return got;
}

/** Verifies a delivery with the reference library and `secret`; answers the payload. */
function verified(secret, g) {
  const h = { 'webhook-id': g.headers['webhook-id'], 'webhook-timestamp': g.headers['webhook-timestamp'], 'webhook-signature': g.headers['webhook-signature'] };
  return new Webhook(secret).verify(g.body, h);
}

/** axe with every rule (best-practice and experimental too) on the webhooks section alone. */
async function axeSection(page, label) {
  const result = await new AxeBuilder({ page })
    .include('#webhooks')
    .options({ runOnly: { type: 'tag', values: AXE_TAGS }, rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  const out = result.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${(n.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`));
  assert.deepEqual(out, [], `axe on the webhooks section: ${label}`);
  assert.ok(result.passes.length > 0, 'axe ran');
}

/** Opens `path` as the console user `who` and waits for the screen. */
async function asConsole(L, who, path) {
  const page = await ctx.browser.page();
  await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: who.token, lastActionTime: String(Date.now()) });
  await page.goto(`${ctx.server.base}${path}`);
  await page.locator('.console-bar').waitFor();
  await settled(page);
  return page;
}

/** Presses Tab until the focused element has `testId` (at most 60 times). */
async function tabTo(page, testId) {
  for (let i = 0; i < 60; i++) {
    if ((await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === testId) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${testId}`);
}

/** The reason dialog `testId`, by keyboard: the reason (its field has the focus), then Tab to its confirm button. */
async function reasonByKeyboard(page, testId, reason) {
  await page.getByTestId(testId).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'reason');
  await page.keyboard.type(reason);
  await tabTo(page, 'reason-confirm');
  await page.keyboard.press('Enter');
}

/** The reason dialog `testId`: the reason filled in, then confirmed. */
async function withReason(page, testId, reason) {
  const d = page.getByTestId(testId);
  await d.waitFor();
  await d.locator('textarea[name="reason"]').fill(reason);
  await d.getByTestId('reason-confirm').click();
  await d.waitFor({ state: 'detached' });
}

/** The focused element's name attribute and value. */
const focused = (page) => page.evaluate(() => ({ name: document.activeElement?.getAttribute('name'), value: document.activeElement?.value, testId: document.activeElement?.getAttribute('data-testid') }));

/** The field error under the URL input. */
async function urlError(form) {
  const url = form.locator('input[name="url"]');
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  const ids = (await url.getAttribute('aria-describedby')).split(' ');
  return (await form.locator(`[id="${ids[1]}"]`).textContent()).trim();
}

/** A `datetime-local` value of the browser's local time, `ms` from now. */
const localInput = (page, ms) =>
  page.evaluate((d) => {
    const t = new Date(Date.now() + d);
    const p = (n) => String(n).padStart(2, '0');
    return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())}T${p(t.getHours())}:${p(t.getMinutes())}`;
  }, ms);

for (const L of LOCALES) {
  describe(`webhooks on the console's app page (${L})`, { skip }, () => {
    const t = messages[L];
    const path = `/hook-${L}`;

    it('an admin adds an endpoint by keyboard, sees its secret once, changes it, reads the log, replays, rotates, disables and removes it', async () => {
      const { base } = ctx.server;
      const admin = await consoleUser(ctx.server, 'admin', `hooks-admin-${L}`);
      // The partner app (scope nickname) and a customer who consented to it (a ticket).
      const service = `https://hooks-${L.toLowerCase()}.example.com/cb`;
      const made = await apiCall(
        base,
        'POST',
        '/admin/apps',
        { name: { 'zh-CN': `钩子商城 ${L}`, 'en-US': `Hooks shop ${L}` }, serviceUrls: [service], scopes: ['nickname'], reason: 'webhooks e2e' },
        admin.token,
      );
      assert.equal(made.status, 201, JSON.stringify(made.json));
      const appId = made.json.app.appId;
      const customer = await createAccount(ctx.server, { account: uniqueMail(`hooks-customer-${L.toLowerCase()}`) });
      const ticket = await apiCall(base, 'POST', '/auth/login/token', { appId, serviceUrl: service }, customer.token);
      assert.equal(ticket.status, 200, JSON.stringify(ticket.json));
      const nickname = async (n) => {
        const r = await apiCall(base, 'PATCH', '/auth/info', { displayName: n }, customer.token);
        assert.equal(r.status, 200, JSON.stringify(r.json));
      };

      const page = await asConsole(L, admin, `/${L}/admin/apps/${encodeURIComponent(appId)}`);
      const section = page.locator('#webhooks');
      await section.getByTestId('webhooks-none').waitFor();
      assert.equal((await section.locator('h2').textContent()).trim(), t['admin.webhooks.heading']);
      await axeSection(page, `${L}, no endpoint`);

      // Keyboard only: open the form, an http URL to a public host is refused at the field.
      await page.locator('body').focus();
      await tabTo(page, 'webhook-add');
      await page.keyboard.press('Enter');
      const form = section.getByTestId('webhook-form');
      await form.waitFor();
      assert.equal((await focused(page)).name, 'url', 'the URL field has the focus');
      await page.keyboard.type('http://shop.example.com/hook');
      await page.keyboard.press('Tab'); // the first event kind: user.updated
      assert.equal((await focused(page)).value, 'user.updated');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab'); // session.ended
      assert.equal((await focused(page)).value, 'session.ended');
      await page.keyboard.press('Space');
      await tabTo(page, 'webhook-create');
      await page.keyboard.press('Enter');
      // The reason, asked in a dialog before anything is sent.
      await axeSection(page, `${L}, the reason dialog`);
      await reasonByKeyboard(page, 'webhook-create-dialog', `partner onboarding ${L}`);
      await form.locator('input[name="url"][aria-invalid="true"]').waitFor();
      assert.equal(await urlError(form), t['error.WEBHOOK_URL_NOT_HTTPS']);
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'url'); // the refused field has the focus
      // The metadata address is refused too.
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('https://169.254.169.254/latest');
      await page.keyboard.press('Enter');
      await reasonByKeyboard(page, 'webhook-create-dialog', `partner onboarding ${L}`);
      await page.waitForFunction((want) => document.querySelector('[data-testid="webhook-form"] .field-error')?.textContent === want, t['error.WEBHOOK_URL_PRIVATE']);
      assert.equal(await urlError(form), t['error.WEBHOOK_URL_PRIVATE']);
      await axeSection(page, `${L}, a refused URL`);
      // The receiver on loopback, with a description.
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(`${receiver.base}${path}`);
      await tabTo(page, 'webhook-create');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Shift+Tab'); // the description
      assert.equal((await focused(page)).name, 'description');
      await page.keyboard.type(`orders ${L}`);
      await tabTo(page, 'webhook-create');
      await page.keyboard.press('Enter');
      await reasonByKeyboard(page, 'webhook-create-dialog', `partner onboarding ${L}`);

      // The secret, shown once, focused.
      const once = section.getByTestId('webhook-secret-once');
      await once.waitFor();
      const secret = await once.getByTestId('webhook-secret').inputValue();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal((await focused(page)).testId, 'webhook-secret');
      const item = section.getByTestId('webhook');
      assert.equal((await item.locator('h3').textContent()).trim(), `${receiver.base}${path}`);
      assert.equal((await item.getByTestId('webhook-state').textContent()).trim(), t['admin.webhooks.enabled']);
      const events = await item.getByTestId('webhook-events').textContent();
      assert.ok(events.includes(t['admin.webhooks.kind.userUpdated']) && events.includes('session.ended'), events);
      await axeSection(page, `${L}, the secret shown`);
      const endpointId = await item.getAttribute('data-endpoint-id');
      const hooks = consoleWebhooks(ctx.server, admin, appId);
      const listed = await hooks.list();
      assert.deepEqual(
        listed.json.endpoints.map((e) => [e.endpointId, e.url, e.events, e.description]),
        [[endpointId, `${receiver.base}${path}`, ['user.updated', 'session.ended'], `orders ${L}`]],
      );
      await once.getByRole('button', { name: t['admin.secret.dismiss'] }).click();
      assert.equal(await section.getByTestId('webhook-secret').count(), 0, 'shown once');

      // A change: one more kind; the card says it.
      await item.getByTestId('webhook-edit').click();
      const edit = item.getByTestId('webhook-form');
      await edit.locator('input[name="events"][value="user.mail_changed"]').check();
      await edit.getByTestId('webhook-save').click();
      await withReason(page, 'webhook-save-dialog', 'the partner wants mail changes');
      await edit.waitFor({ state: 'detached' });
      await item.getByTestId('webhook-events').filter({ hasText: 'user.mail_changed' }).waitFor();
      const changed = await hooks.get(endpointId);
      assert.deepEqual(changed.json.events, ['user.updated', 'user.mail_changed', 'session.ended']);

      // The customer changes the nickname: the receiver verifies it with the shown secret.
      await nickname(`Hook ${L}`);
      const [first] = await receivedAtLeast(path, 1);
      const payload = verified(secret, first);
      assert.equal(payload.type, 'user.updated');
      assert.equal(payload.data.nickname, `Hook ${L}`);
      const eventId = first.headers['webhook-id'];

      // The delivery log shows it; replaying it sends the same webhook-id again.
      await item.getByTestId('webhook-log-toggle').click();
      const log = item.getByTestId('webhook-log');
      const row = log.locator(`[data-testid="delivery"][data-event-id="${eventId}"]`);
      await row.first().waitFor();
      assert.equal(await row.first().getAttribute('data-outcome'), 'delivered');
      await item.getByTestId('webhook-last-success').locator('time').waitFor(); // read again with its log
      assert.equal((await row.first().getByTestId('delivery-status').textContent()).trim(), '200');
      await row.first().locator('summary').click();
      assert.equal(await row.first().getByTestId('delivery-answer').textContent(), `thanks ${eventId}`);
      assert.ok((await row.first().textContent()).includes(t['admin.webhookLog.outcome.delivered']));
      await row.first().getByTestId('delivery-replay').click();
      await withReason(page, 'webhook-replay-dialog', 'the partner lost it');
      await log.getByTestId('webhook-replayed').filter({ hasText: '1' }).waitFor();
      const again = (await receivedAtLeast(path, 2))[1];
      assert.equal(again.headers['webhook-id'], eventId, 'a replay keeps the webhook-id');
      assert.equal(verified(secret, again).data.nickname, `Hook ${L}`);
      for (let i = 0; i < 50 && (await row.count()) < 2; i++) {
        await log.getByTestId('webhook-log-refresh').click();
        await sleep(100);
      }
      assert.equal(await row.count(), 2, 'the replay is in the log');
      await axeSection(page, `${L}, the delivery log`);
      if (process.env.CIAM_E2E_SHOTS) await page.locator('#webhooks').screenshot({ path: join(process.env.CIAM_E2E_SHOTS, `webhooks-${L}.png`) });
      await page.emulateMedia({ colorScheme: 'dark' });
      await axeSection(page, `${L}, the delivery log, dark`);
      await page.emulateMedia({ colorScheme: 'light' });

      // Rotation: a new secret once; the old one verifies until the time the page says.
      await item.getByTestId('webhook-rotate').click();
      const rotate = page.getByTestId('webhook-rotate-dialog');
      await rotate.waitFor();
      await axeSection(page, `${L}, the rotation dialog`);
      await rotate.locator('textarea[name="reason"]').fill('scheduled rotation');
      await rotate.getByTestId('reason-confirm').click();
      await once.waitFor();
      const rotated = await once.getByTestId('webhook-secret').inputValue();
      await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'webhook-secret'); // the focus is on it
      assert.ok(rotated.startsWith('whsec_') && rotated !== secret, 'a new secret');
      const until = await once.getByTestId('webhook-previous-until').locator('time').getAttribute('datetime');
      const one = await hooks.get(endpointId);
      assert.equal(new Date(one.json.previousSecretUntil * 1000).toISOString(), until, 'the end the API reports');
      assert.ok(Math.abs(Date.parse(until) - (Date.now() + 86_400_000)) < 120_000, `about 24 hours (${until})`);
      await once.getByRole('button', { name: t['admin.secret.dismiss'] }).click();
      await nickname(`Hook ${L} 2`);
      const third = (await receivedAtLeast(path, 3))[2];
      assert.equal(verified(rotated, third).data.nickname, `Hook ${L} 2`, 'signed with the new secret');
      assert.equal(verified(secret, third).data.nickname, `Hook ${L} 2`, 'and with the old one meanwhile');

      // A time range: both events were attempted in the last hour.
      const range = log.getByTestId('webhook-replay-range');
      await range.locator('input[name="from"]').fill(await localInput(page, -3_600_000));
      await range.locator('input[name="to"]').fill(await localInput(page, 120_000));
      await range.getByTestId('webhook-replay-range-submit').click();
      await withReason(page, 'webhook-replay-dialog', 'an outage at the partner');
      await log.getByTestId('webhook-replayed').filter({ hasText: '2' }).waitFor();
      const replayed = (await receivedAtLeast(path, 5)).slice(3).map((g) => g.headers['webhook-id']);
      assert.deepEqual(new Set(replayed), new Set([eventId, third.headers['webhook-id']]));

      // On a phone nothing of the section sticks out (the log's table scrolls in its own frame).
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForFunction(() => window.innerWidth === 390);
      await sleep(200);
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('#webhooks *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap'))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px: ${e.textContent.slice(0, 60)}`),
      );
      assert.deepEqual(wide, [], 'the section fits 390 px');
      if (process.env.CIAM_E2E_SHOTS) await page.locator('#webhooks').screenshot({ path: join(process.env.CIAM_E2E_SHOTS, `webhooks-${L}-phone.png`) });
      await page.setViewportSize({ width: 1280, height: 900 });

      // Disabled: the state and why; a change reaches nothing.
      await item.getByTestId('webhook-disable').click();
      await withReason(page, 'webhook-disable-dialog', 'the partner asked');
      await item.getByTestId('webhook-state').filter({ hasText: t['admin.webhooks.disabled'] }).waitFor();
      await item.getByTestId('webhook-why').waitFor();
      await item.getByTestId('webhook-enable').waitFor();
      await axeSection(page, `${L}, disabled`);
      const before = received(path).length;
      await nickname(`Hook ${L} 3`);
      await sleep(1500);
      assert.equal(received(path).length, before, 'a disabled endpoint hears nothing');

      // Removed after the confirmation.
      await item.getByTestId('webhook-remove').click();
      const remove = page.getByTestId('webhook-remove-dialog');
      await remove.waitFor();
      await withReason(page, 'webhook-remove-dialog', 'the partner moved');
      await section.getByTestId('webhooks-none').waitFor();
      const none = await hooks.list();
      assert.deepEqual(none.json.endpoints, []);

      // An endpoint that answers 410 Gone is disabled at once, and the page says why.
      const goneAt = `/gone-${L}`;
      const added = await hooks.create({ url: `${receiver.base}${goneAt}`, events: ['user.updated'] });
      assert.equal(added.status, 201, JSON.stringify(added.json));
      await nickname(`Hook ${L} 4`);
      await receivedAtLeast(goneAt, 1);
      for (let i = 0; i < 100; i++) {
        const e = await hooks.get(added.json.endpoint.endpointId);
        if (!e.json.enabled) break;
        await sleep(50);
      }
      await page.reload();
      const goneItem = page.locator('#webhooks').getByTestId('webhook');
      await goneItem.getByTestId('webhook-state').filter({ hasText: t['admin.webhooks.disabled'] }).waitFor();
      const why = (await goneItem.getByTestId('webhook-why').textContent()).trim();
      const [head, tail] = t['admin.webhooks.gone'].split('{time}');
      assert.ok(why.startsWith(head) && why.includes(tail), `${why} says 410 Gone`);
      // The app registered no ownerMail: the page says nobody was told.
      assert.ok(why.endsWith(t['admin.webhooks.noOwner']), `${why} says nobody was told`);
      assert.equal(received(goneAt).length, 1, 'nothing more is sent after the 410');
      assert.deepEqual(ctx.browser.errors, []);
    });

    it('a console operator reads the endpoints and their log; only administrators change them', async () => {
      const admin = await consoleUser(ctx.server, 'admin', `hooks-admin2-${L}`);
      const made = await apiCall(
        ctx.server.base,
        'POST',
        '/admin/apps',
        { name: { 'zh-CN': `只读 ${L}`, 'en-US': `Read only ${L}` }, serviceUrls: [`https://ro-${L.toLowerCase()}.example.com/cb`], reason: 'webhooks e2e' },
        admin.token,
      );
      assert.equal(made.status, 201, JSON.stringify(made.json));
      const added = await consoleWebhooks(ctx.server, admin, made.json.app.appId).create({ url: `${receiver.base}/ro-${L}`, events: ['user.updated'] });
      assert.equal(added.status, 201, JSON.stringify(added.json));
      const operator = await consoleUser(ctx.server, 'operator', `hooks-operator-${L}`);
      const page = await asConsole(L, operator, `/${L}/admin/apps/${encodeURIComponent(made.json.app.appId)}`);
      const section = page.locator('#webhooks');
      const line = section.getByTestId('webhooks-admins-only');
      await line.waitFor();
      assert.equal((await line.textContent()).trim(), t['admin.webhooks.adminsOnly']);
      await page.getByTestId('app-id').waitFor();
      const item = section.getByTestId('webhook');
      assert.equal((await item.locator('h3').textContent()).trim(), `${receiver.base}/ro-${L}`);
      await item.getByTestId('webhook-log-toggle').click();
      await item.getByTestId('webhook-log').waitFor();
      await item.getByTestId('webhook-log-refresh').waitFor();
      for (const id of ['webhook-add', 'webhook-edit', 'webhook-disable', 'webhook-rotate', 'webhook-remove', 'webhook-replay-range']) {
        assert.equal(await section.getByTestId(id).count(), 0, `an operator has no ${id}`);
      }
      await axeSection(page, `${L}, an operator`);
    });
  });
}
