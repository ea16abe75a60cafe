// Issue 23 §3-4 in Chromium, in both languages: a partner's page on another origin frames the
// embedded sign-in at 380 x 520. A two-factor account finishes the sign-in inside the frame with an
// authenticator code (by keyboard alone) and with a backup code, up to the ticket the partner
// verifies; the lock shows in the frame and reaches the host as `ciam:error`; the frame is compact
// (no site header, the submit button in view) and in the host's theme (`theme=dark`); the sign-in
// and consent pages name the app the user continues to, the consent page links its privacy policy
// and says who is signed in ("not you?" signs out); axe (every rule) on the new screens.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, it, before, after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiCall, axeEveryRule, base32, createAccount, LOCALES, requirements, ROOT, suite, totp, uniqueMail } from './harness.mjs';

const msgs = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

// One server and one browser per language (the browser's language is the one a user of that
// language has; `ctx` is the current language's).
let ctx;

const WORDS = {
  'zh-CN': { continueTo: (app) => `继续前往 ${app}`, backup: '备用码', signin: '登录' },
  'en-US': { continueTo: (app) => `to continue to ${app}`, backup: 'Backup code', signin: 'Sign in' },
};

/** The partner's page: a 380 x 520 frame of the URL in its hash; records every message. */
const HOST_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Host</title>
<body style="margin:0"><script>
window.__messages = [];
window.addEventListener('message', (e) => window.__messages.push({ origin: e.origin, data: e.data }));
const f = document.createElement('iframe');
f.title = 'Ciam sign-in';
f.width = '380';
f.height = '520';
f.style.border = '0';
f.src = decodeURIComponent(location.hash.slice(1));
document.body.append(f);
</script></body></html>`;

let host;
const app = {};

async function setUp() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(HOST_PAGE);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  host = { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
  const stamp = Date.now();
  app.names = { 'zh-CN': `精工商城${stamp}`, 'en-US': `Precision Shop ${stamp}` };
  app.logo = 'https://cdn.example.com/precision-shop.png';
  app.serviceUrl = `${host.origin}/callback`;
  const created = ctx.server.registerApp({
    name: app.names,
    logo: app.logo,
    privacyUrl: 'https://cdn.example.com/privacy',
    serviceUrls: [app.serviceUrl],
    frameOrigins: [host.origin],
    scopes: ['nickname', 'email'],
  });
  app.id = created.app.appId;
  app.secret = created.appSecret;
}

/** A new account with two-factor on: its key, the step its enabling code used, its backup codes. */
async function twoFactorUser(tag) {
  const user = await createAccount(ctx.server, { account: uniqueMail(tag) });
  const uri = await apiCall(ctx.server.base, 'GET', '/auth/totp/url', undefined, user.token);
  assert.equal(uri.status, 200, JSON.stringify(uri.json));
  const key = base32(new URL(uri.json.url).searchParams.get('secret'));
  const step = Math.floor(Date.now() / 30_000);
  const on = await apiCall(ctx.server.base, 'POST', '/auth/totp/enable', { code: totp(key, step) }, user.token);
  assert.equal(on.status, 200, JSON.stringify(on.json));
  return { ...user, key, step, backup: on.json.backupCodes };
}

/** A code of a step after the one already used (the server takes each step once, current ± 1). */
async function nextCode(user) {
  const next = Math.max(user.step + 1, Math.floor(Date.now() / 30_000));
  while (next > Math.floor(Date.now() / 30_000) + 1) await sleep(500);
  user.step = next;
  return totp(user.key, next);
}

const embeddedUrl = (lang, extra = '') =>
  `${ctx.server.base}/${lang}/embedded/signin?appId=${app.id}&serviceUrl=${encodeURIComponent(app.serviceUrl)}&validateMsg=notice${extra}`;

async function openHost(src) {
  const page = await ctx.browser.context.newPage();
  await page.setViewportSize({ width: 380, height: 520 });
  await page.goto(`${host.origin}/#${encodeURIComponent(src)}`);
  const frame = page.frameLocator('iframe');
  await frame.locator('form[data-testid="signin-password"]').waitFor();
  return { page, frame };
}

const messages = (page) => page.evaluate(() => window.__messages);

/** The password step in the frame, by keyboard: the account, Tab, the password, Enter. */
async function passwordStep(frame, user) {
  const account = frame.locator('[name="account"]');
  await account.focus();
  await account.pressSequentially(user.account);
  await account.press('Tab');
  await frame.locator('[name="password"]').pressSequentially(user.password);
  await frame.locator('[name="password"]').press('Enter');
  await frame.locator('[data-testid="mfa-code"]').waitFor();
}

async function verifyTicket(cTicket) {
  const q = new URLSearchParams({ cTicket, serviceUrl: app.serviceUrl });
  const res = await fetch(`${ctx.server.base}/ciam/v1/auth/login/token/verify?${q}`, {
    headers: { authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}` },
  });
  return { status: res.status, claims: await res.json() };
}

async function ticketOf(page) {
  await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'ciam:ticket'));
  return (await messages(page)).find((m) => m.data.type === 'ciam:ticket').data;
}

for (const lang of LOCALES) {
  describe(`${lang}: the second step inside a partner frame, the compact themed frame, the partner named`, { skip: requirements() }, () => {
    const s = suite({ locale: lang });
    before(async () => {
      ctx = s.ctx;
      await setUp();
    });
    after(async () => host?.close());
    const w = WORDS[lang];

    it(`${lang}: an authenticator code by keyboard alone, in the frame: the consent step, then a ticket that verifies`, async () => {
      const user = await twoFactorUser(`frame-totp-${lang}`);
      const { page, frame } = await openHost(embeddedUrl(lang));
      try {
        // The frame names the app the user continues to, with its logo (48 px, alt text).
        await frame.locator('[data-testid="partner-banner"]', { hasText: w.continueTo(app.names[lang]) }).waitFor();
        const logo = frame.locator('[data-testid="partner-banner"] img');
        assert.equal(await logo.getAttribute('src'), app.logo);
        assert.ok((await logo.getAttribute('alt')).includes(app.names[lang]));
        assert.deepEqual(await logo.evaluate((i) => [i.width, i.height]), [48, 48]);
        await passwordStep(frame, user);
        // The code field has the focus: type the code and press Enter.
        assert.equal(await frame.locator('[data-testid="mfa-code"]').evaluate((e) => e === document.activeElement), true);
        await page.keyboard.type(await nextCode(user));
        await page.keyboard.press('Enter');
        await frame.locator('[data-testid="embedded-consent"]').waitFor();
        // Allow by keyboard: Tab to it, Enter.
        const allow = frame.locator('[data-testid="embedded-allow"]');
        for (let i = 0; i < 10 && !(await allow.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
        await page.keyboard.press('Enter');
        const ticket = await ticketOf(page);
        const all = await messages(page);
        assert.deepEqual(all.map((m) => m.data.type), ['ciam:ticket'], 'NEED_TOTP_VERIFY is not a refusal any more: nothing else posted');
        assert.ok(all.every((m) => m.origin === ctx.server.base));
        const v = await verifyTicket(ticket.cTicket);
        assert.equal(v.status, 200, JSON.stringify(v.claims));
        assert.equal(v.claims.email, user.account.toLowerCase());
        await frame.locator('[data-testid="embedded-done"]').waitFor();
        const inner = page.frames().find((f) => f !== page.mainFrame());
        assert.ok(inner.url().startsWith(`${ctx.server.base}/${lang}/embedded/signin`), inner.url());
      } finally {
        await page.close();
      }
    });

    it(`${lang}: a backup code in the frame; the app already allowed: the ticket straight on`, async () => {
      const user = await twoFactorUser(`frame-backup-${lang}`);
      // Allowed once already (the consent remembered): the frame goes straight to the ticket.
      const allowed = await apiCall(ctx.server.base, 'POST', '/auth/login/token', { appId: app.id, serviceUrl: app.serviceUrl }, user.token);
      assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
      const { page, frame } = await openHost(embeddedUrl(lang));
      try {
        await passwordStep(frame, user);
        await frame.getByRole('tab', { name: w.backup }).click();
        await frame.locator('[data-testid="mfa-code"]').fill(user.backup[0]);
        await frame.locator('[data-testid="mfa-code"]').press('Enter');
        const ticket = await ticketOf(page);
        const v = await verifyTicket(ticket.cTicket);
        assert.equal(v.status, 200, JSON.stringify(v.claims));
        assert.equal(v.claims.email, user.account.toLowerCase());
      } finally {
        await page.close();
      }
    });

    it(`${lang}: wrong codes end in the lock, shown in the frame and posted to the host as ciam:error`, async () => {
      const user = await twoFactorUser(`frame-lock-${lang}`);
      const { page, frame } = await openHost(embeddedUrl(lang));
      try {
        await passwordStep(frame, user);
        const code = frame.locator('[data-testid="mfa-code"]');
        const right = totp(user.key, Math.floor(Date.now() / 30_000));
        const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
        for (let i = 0; i < 8; i++) {
          const before = (await messages(page)).length;
          await code.fill(wrong);
          await code.press('Enter');
          await page.waitForFunction((n) => window.__messages.length > n, before);
          if ((await messages(page)).at(-1).data.reason === 'VERIFICATION_ATTEMPT_CODE_LIMIT') break;
        }
        const posted = await messages(page);
        assert.ok(posted.length >= 2, JSON.stringify(posted));
        assert.ok(posted.every((m) => m.data.type === 'ciam:error' && m.origin === ctx.server.base));
        assert.deepEqual(Object.keys(posted.at(-1).data).sort(), ['errMsg', 'reason', 'type']);
        assert.equal(posted.at(-1).data.reason, 'VERIFICATION_ATTEMPT_CODE_LIMIT');
        // The lock in the frame: its clock, Verify disabled, the reset opening a new window.
        await frame.locator('[data-testid="mfa-unlock-in"]').waitFor();
        // Said once in the frame (the lock, then its clock for the wait); the host hears the spec's
        // sentence with the minutes, having no clock.
        assert.equal(await frame.locator('[data-testid="mfa-error"]').textContent(), msgs[lang]['form.locked']);
        assert.match(await frame.locator('[data-testid="mfa-unlock-in"]').textContent(), /1[45]:\d\d/);
        assert.ok(posted.at(-1).data.errMsg.startsWith(msgs[lang]['error.lockedFor'].split('{')[0]), posted.at(-1).data.errMsg);
        assert.equal(await frame.locator('dialog button[type="submit"]').isDisabled(), true);
        const reset = frame.locator('[data-testid="lock-reset"]');
        assert.equal(await reset.getAttribute('target'), '_blank');
        assert.equal(await reset.getAttribute('rel'), 'noopener');
        assert.ok(!JSON.stringify(posted).includes(user.account));
      } finally {
        await page.close();
      }
    });

    it(`${lang}: compact at 380 x 520 (no site header, the submit button in view) and in the host's theme=dark`, async () => {
      const { page, frame } = await openHost(embeddedUrl(lang, '&theme=dark'));
      try {
        await frame.locator('[data-testid="partner-banner"]').waitFor();
        assert.equal(await frame.locator('header.top').isVisible(), false);
        assert.equal(await frame.locator('footer.foot').isVisible(), false);
        const submit = frame.locator('form[data-testid="signin-password"] button[type="submit"]');
        const box = await submit.boundingBox();
        const frameBox = await page.locator('iframe').boundingBox();
        assert.ok(box && box.y >= frameBox.y && box.y + box.height <= frameBox.y + frameBox.height, `submit in view: ${JSON.stringify({ box, frameBox })}`);
        const sizes = await frame.locator('html').evaluate((e) => [e.scrollHeight, e.clientHeight]);
        assert.ok(sizes[0] <= sizes[1], `no scrolling: ${sizes}`);
        const forgot = frame.locator('[data-testid="embedded-forgot"]');
        assert.equal(await forgot.getAttribute('target'), '_blank');
        assert.ok((await forgot.getAttribute('href')).startsWith(`/${lang}/find/password`));
        // Dark whatever the system says (Chromium here prefers light).
        const colors = await frame.locator('.card').evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]);
        assert.deepEqual(colors, ['rgb(27, 31, 38)', 'rgb(230, 232, 236)']);
        assert.equal(await frame.locator('html').evaluate((e) => getComputedStyle(e).colorScheme), 'dark');
      } finally {
        await page.close();
      }
      // theme=light, the system dark: light.
      const dark = await ctx.browser.context.newPage();
      try {
        await dark.emulateMedia({ colorScheme: 'dark' });
        await dark.goto(embeddedUrl(lang, '&theme=light'));
        await dark.locator('form[data-testid="signin-password"]').waitFor();
        assert.equal(await dark.locator('.card').evaluate((e) => getComputedStyle(e).backgroundColor), 'rgb(255, 255, 255)');
      } finally {
        await dark.close();
      }
    });

    it(`${lang}: the sign-in, sign-up and consent pages name the app; axe (every rule) on them and on the frame's second step`, async () => {
      const page = await ctx.browser.context.newPage();
      try {
        // As partners write it: the serviceUrl as it is (an encoded one is dropped on the way).
        const q = `appId=${app.id}&serviceUrl=${app.serviceUrl}`;
        for (const path of ['passport/signin', 'passport/register']) {
          await page.goto(`${ctx.server.base}/${lang}/${path}?${q}`);
          await page.locator('[data-testid="partner-banner"]', { hasText: w.continueTo(app.names[lang]) }).waitFor();
          assert.deepEqual(await axeEveryRule(page), [], `${lang} ${path}`);
        }
        const user = await createAccount(ctx.server, { account: uniqueMail(`frame-consent-${lang}`) });
        await page.goto(`${ctx.server.base}/${lang}/passport/signin?${q}`);
        await page.locator('[name="account"]').fill(user.account);
        await page.locator('[name="password"]').fill(user.password);
        await page.locator('form[data-testid="signin-password"] button[type="submit"]').click();
        await page
          .locator('[data-testid="authorize-app"]', { hasText: app.names[lang] })
          .waitFor()
          .catch(async (e) => assert.fail(`${e.message}\n${page.url()}\n${await page.locator('main').innerText()}`));
        assert.equal(await page.locator('.app-logo').getAttribute('src'), app.logo);
        // The app's privacy policy (a new window) and who is signed in, masked.
        const privacy = page.locator('[data-testid="authorize-privacy"]');
        assert.equal(await privacy.getAttribute('href'), 'https://cdn.example.com/privacy');
        assert.equal(await privacy.getAttribute('target'), '_blank');
        const who = await page.locator('[data-testid="authorize-who"]').innerText();
        assert.ok(who.includes('***') && !who.includes(user.account.split('@')[0]), who);
        assert.deepEqual(await axeEveryRule(page), [], `${lang} consent`);
        // "Not you?": signed out, back at the sign-in of the same request.
        await page.locator('[data-testid="authorize-switch"]').click();
        await page.waitForURL((u) => u.pathname === `/${lang}/passport/signin` && u.searchParams.get('appId') === app.id);
        assert.equal(await page.evaluate(() => localStorage.getItem('ciam_token')), null);
        await page.locator('[data-testid="partner-banner"]', { hasText: w.continueTo(app.names[lang]) }).waitFor();
      } finally {
        await page.close();
      }
      // The second step, as the frame shows it (top-level here: axe reads the page).
      const user = await twoFactorUser(`frame-axe-${lang}`);
      const step = await ctx.browser.context.newPage();
      try {
        await step.setViewportSize({ width: 380, height: 520 });
        await step.goto(embeddedUrl(lang, '&theme=dark'));
        await step.locator('[name="account"]').fill(user.account);
        await step.locator('[name="password"]').fill(user.password);
        await step.locator('[name="password"]').press('Enter');
        await step.locator('[data-testid="mfa-code"]').waitFor();
        assert.deepEqual(await axeEveryRule(step), [], `${lang} second step (dark)`);
      } finally {
        await step.close();
      }
    });
  });
}
