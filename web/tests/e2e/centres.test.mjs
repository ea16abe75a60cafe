// The personal and security centres end to end, in both languages, against a real `ciam serve`
// in real Chromium: two-factor set-up from the manual key (codes computed here, RFC 6238),
// the backup codes downloaded and read back, sign-in through the multi-factor modal with an
// authenticator code and with a backup code, regenerating the codes, turning two-factor off;
// the avatar (a PNG made here; an SVG refused), binding a new mail address, the marketing
// opt-in, privacy choices, sessions and activity (when the server has them), the pages at
// 360 px with axe, and finally deactivating the account.
//
// TOTP replay protection: the server accepts the current 30 s step ±1, and never a step at or
// before the last one it accepted. Totp.next() uses the first step after the last one used,
// waiting only when that step is more than one step ahead of the clock.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { apiCall, base32, createAccount, expectAccessible, LOCALES, ROOT, setStorage, settled, storage, suite, totp, uniqueMail } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const PASSWORD = 'Ciam-Centres-2026!';

// ---- RFC 6238 codes, never the same step twice ----------------------------------------------------

const stepNow = () => Math.floor(Date.now() / 1000 / 30);

class Totp {
  constructor(secret) {
    this.key = base32(secret);
    this.last = -Infinity;
  }
  /** A code the server has not seen yet: the first step after the last one used. */
  async next() {
    const step = Math.max(stepNow(), this.last + 1);
    while (step > stepNow() + 1) await sleep(250);
    this.last = step;
    return totp(this.key, step);
  }
}

// ---- a small PNG, made here --------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
/** A size x size RGBA PNG: a blue square with a white diagonal. */
function png(size = 16) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0
    for (let x = 0; x < size; x++) {
      const white = x === y;
      row.set(white ? [255, 255, 255, 255] : [11, 87, 208, 255], 1 + x * 4);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><script>alert(1)</script></svg>');

// ---- page helpers ------------------------------------------------------------------------------

async function open(page, base, path, ready) {
  await page.goto(`${base}${path}`);
  await settled(page);
  await page.locator(ready).first().waitFor();
}

async function passwordStep(page, base, L, account) {
  await page.goto(`${base}/${L}/passport/signin`);
  await settled(page);
  const another = page.locator('[data-testid="another-account"]');
  if (await another.isVisible()) await another.click();
  const form = page.locator('form[data-testid="signin-password"]');
  await form.locator('[name="account"]').fill(account);
  await form.locator('[name="password"]').fill(PASSWORD);
  await form.locator('button[type="submit"]').click();
  const modal = page.locator('dialog.modal[open]');
  await modal.waitFor();
  return modal;
}

async function logout(page, L) {
  await page.locator('[data-testid="logout"]').click();
  await page.waitForURL(`**/${L}/passport/signin**`);
  assert.equal(await storage(page, 'ciam_token'), null);
}

const codesOnPage = async (page) => (await page.locator('[data-testid="backup-codes"] li').allTextContents()).map((s) => s.trim());

for (const L of LOCALES) {
  describe(`personal and security centres (${L})`, { skip }, () => {
    const t = messages[L];
    const s = { user: null, totp: null, codes: [], token: null };
    const page = () => ctx.browser.page();
    const token = async () => storage(await page(), 'ciam_token');

    it('enables two-factor from the manual key and downloads the backup codes once', async () => {
      const { base } = ctx.server;
      s.user = await createAccount(ctx.server, { account: uniqueMail(`centres-${L.toLowerCase()}`), password: PASSWORD });
      const p = await page();
      await setStorage(p, base, { umi_locale: L, ciam_token: s.user.token, lastActionTime: String(Date.now()) });
      await open(p, base, `/${L}/personal/secure`, '[data-testid="totp-enable"]');
      assert.equal(await p.title(), t['secure.title']);
      assert.equal(await p.locator('[data-testid="totp-status"]').getAttribute('data-enabled'), 'false');
      await p.locator('[data-testid="totp-enable"]').click();

      const key = (await p.locator('[data-testid="totp-manual-key"]').textContent()).trim();
      assert.match(key, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key is Base32 in groups of 4');
      const secret = key.replace(/\s/g, '');
      assert.equal(secret.length, 32, '160-bit secret');
      s.totp = new Totp(secret);
      const qr = p.locator('img[data-testid="totp-qr"]');
      await qr.waitFor();
      assert.equal(await qr.getAttribute('alt'), t['secure.totp.qrAlt']);
      assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth >= 100), 'the QR image is drawn');
      await expectAccessible(p, `two-factor set-up (${L})`);

      const code = p.locator('[data-testid="totp-code"]');
      assert.equal(await code.getAttribute('name'), 'code');
      await code.fill('12345');
      await p.locator('form[data-testid="totp-form"] button[type="submit"]').click();
      await p.locator('form[data-testid="totp-form"] .field-error', { hasText: t['validate.codeDigits'] }).waitFor();
      await code.fill(await s.totp.next());
      await p.locator('form[data-testid="totp-form"] button[type="submit"]').click();

      await p.locator('[data-testid="backup-codes"]').waitFor();
      s.codes = await codesOnPage(p);
      assert.equal(s.codes.length, 10);
      for (const c of s.codes) assert.match(c, /^\d{8}$/);
      assert.equal(await p.locator('[data-testid="totp-status"]').getAttribute('data-enabled'), 'true');
      await expectAccessible(p, `backup codes (${L})`);

      const [download] = await Promise.all([p.waitForEvent('download'), p.locator('[data-testid="backup-download"]').click()]);
      assert.equal(download.suggestedFilename(), 'ciam-backup-codes.txt');
      const text = readFileSync(await download.path(), 'utf8');
      assert.deepEqual(
        text.split(/\r?\n/).filter((l) => /^\d{8}$/.test(l)),
        s.codes,
        'the file holds the codes shown',
      );
      assert.ok(text.includes(s.user.userName), 'the file names the account');
      await p.locator('[data-testid="backup-done"]').click();
      assert.equal(await p.locator('[data-testid="backup-confirm"]').count(), 0, 'no question after a download');
      await p.locator('[data-testid="backup-regenerate"]').waitFor();
      assert.equal(await p.locator('[data-testid="backup-codes"]').count(), 0, 'the codes are shown once');

      const info = await apiCall(base, 'GET', '/auth/info', undefined, await token());
      assert.equal(info.json.enableTotp, true);
    });

    it('signs in again with an authenticator code through the multi-factor modal', async () => {
      const { base } = ctx.server;
      const p = await page();
      await logout(p, L);
      const modal = await passwordStep(p, base, L, s.user.account);
      assert.equal(await modal.getByRole('tab', { name: t['mfa.totp'] }).getAttribute('aria-selected'), 'true');
      await modal.locator('input').fill(await s.totp.next());
      await modal.getByRole('button', { name: t['mfa.verify'] }).click();
      await p.waitForURL(`**/${L}/personal/info**`);
      await p.locator('[data-testid="info-username"]').waitFor();
      assert.ok(await storage(p, 'ciam_token'));
    });

    it('signs in with a backup code, which then no longer works', async () => {
      const { base } = ctx.server;
      const p = await page();
      await logout(p, L);
      let modal = await passwordStep(p, base, L, s.user.account);
      await modal.getByRole('tab', { name: t['mfa.backup'] }).click();
      await modal.locator('input').fill(s.codes[0]);
      await modal.getByRole('button', { name: t['mfa.verify'] }).click();
      await p.waitForURL(`**/${L}/personal/info**`);
      await logout(p, L);

      modal = await passwordStep(p, base, L, s.user.account);
      await modal.getByRole('tab', { name: t['mfa.backup'] }).click();
      await modal.locator('input').fill(s.codes[0]);
      await modal.getByRole('button', { name: t['mfa.verify'] }).click();
      await modal.locator('[role="alert"]', { hasText: t['app.unlockInvalid'] }).waitFor();
      await modal.locator('input').fill(s.codes[1]);
      await modal.getByRole('button', { name: t['mfa.verify'] }).click();
      await p.waitForURL(`**/${L}/personal/info**`);
    });

    it('regenerates the backup codes: skipping the download asks first, and the old codes stop working', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/personal/secure`, '[data-testid="backup-regenerate"]');
      await p.locator('[data-testid="backup-regenerate"]').click();
      await p.locator('[data-testid="backup-codes"]').waitFor();
      const fresh = await codesOnPage(p);
      assert.equal(fresh.length, 10);
      assert.equal(fresh.filter((c) => s.codes.includes(c)).length, 0, 'new codes');
      await p.locator('[data-testid="backup-done"]').click();
      const dialog = p.getByRole('dialog', { name: t['secure.backup.confirmTitle'] });
      await dialog.waitFor();
      await expectAccessible(p, `skip-download confirmation (${L})`);
      await p.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await p.locator('[data-testid="backup-codes"]').count(), 1, 'Escape keeps the codes');
      await p.locator('[data-testid="backup-done"]').click();
      await p.locator('[data-testid="backup-skip"]').click();
      await p.locator('[data-testid="backup-codes"]').waitFor({ state: 'detached' });

      const pw = await apiCall(base, 'POST', '/auth/login/password', { account: s.user.account, password: PASSWORD });
      assert.equal(pw.json.reason, 'NEED_TOTP_VERIFY');
      const old = await apiCall(base, 'POST', '/auth/unlockCode', { challenge: pw.json.challenge, code: s.codes[2] });
      assert.equal(old.json.reason, 'UNLOCKCODE_NOT_FOUND', 'an old code is refused');
      const ok = await apiCall(base, 'POST', '/auth/unlockCode', { challenge: pw.json.challenge, code: fresh[0] });
      assert.equal(ok.status, 200, `a new code works: ${JSON.stringify(ok.json)}`);
      s.codes = fresh.slice(1);
    });

    it('turns two-factor off after confirming', async () => {
      const { base } = ctx.server;
      const p = await page();
      await p.locator('[data-testid="totp-disable"]').click();
      await p.getByRole('dialog', { name: t['secure.totp.disableTitle'] }).waitFor();
      await p.locator('[data-testid="totp-disable-confirm"]').click();
      await p.locator('[data-testid="totp-enable"]').waitFor();
      assert.equal(await p.locator('[data-testid="totp-status"]').getAttribute('data-enabled'), 'false');
      const info = await apiCall(base, 'GET', '/auth/info', undefined, await token());
      assert.equal(info.json.enableTotp, false);
    });

    it('saves the marketing opt-in', async () => {
      const { base } = ctx.server;
      const p = await page();
      const box = p.locator('[data-testid="advertisement"]');
      assert.equal(await box.isChecked(), false);
      await box.check();
      await p.locator('[data-testid="advertisement"][aria-busy="false"]').waitFor();
      const info = await apiCall(base, 'GET', '/auth/info', undefined, await token());
      assert.equal(info.json.advertisement, 'subscribe');
      assert.equal(await box.isChecked(), true);
    });

    it('saves privacy choices and lists their history', async () => {
      const { base } = ctx.server;
      const p = await page();
      // Closed behind its row: opened first.
      await p.getByTestId('privacy-form-open').click();
      const form = p.locator('form[data-testid="privacy-form"]');
      await form.waitFor();
      await form.locator('[name="analytics"]').check();
      await form.locator('button[type="submit"]').click();
      const item = p.locator('[data-testid="privacy-history"] li').first();
      await item.waitFor();
      assert.ok((await item.textContent()).includes(t['secure.cookies.analyticsOn']));
      assert.ok(await item.locator('time').getAttribute('datetime'));
      const privacy = await apiCall(base, 'GET', '/auth/privacy', undefined, await token());
      assert.equal(privacy.json.settings.analytics, true);
    });

    it('lists where the account is signed in and the security activity', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/personal/secure`, '[data-testid="sessions"] li');
      assert.equal(await p.locator('[data-testid="sessions"] li[data-current]').count(), 1);
      const kinds = await p.locator('[data-testid="activity"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
      for (const k of ['totpEnabled', 'backupCodesRegenerated', 'totpDisabled', 'signIn']) assert.ok(kinds.includes(k), `activity has ${k}: ${kinds}`);
      const label = await p.locator('[data-testid="activity"] li[data-kind="totpEnabled"] strong').first().textContent();
      assert.equal(label, t['secure.activity.totpEnabled']);

      // Another device (an API sign-in) appears, and signing it out here ends its session.
      const other = await apiCall(base, 'POST', '/auth/login/password', { account: s.user.account, password: PASSWORD });
      assert.equal(other.status, 200);
      await p.reload();
      await settled(p);
      // (Turning two-factor off ended every other session, so this is the only other one.)
      const others = p.locator('[data-testid="sessions"] li:not([data-current])');
      await others.first().waitFor();
      assert.equal(await others.count(), 1);
      await others.first().getByRole('button', { name: t['secure.sessions.revoke'] }).click();
      // A destructive action asks first.
      await p.getByTestId('session-revoke-confirm').click();
      await others.first().waitFor({ state: 'detached' });
      const after = await apiCall(base, 'GET', '/auth/info', undefined, other.json.token);
      assert.equal(after.status, 401, 'the signed-out device has lost its session');
      assert.equal((await apiCall(base, 'GET', '/auth/info', undefined, await token())).status, 200, 'this one stays');
    });

    it('lists the applications: none used yet, and the seeded demo app recommended', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/personal/info`, '[data-testid="apps"]');
      await p.locator('[data-testid="apps"]', { hasText: t['info.apps.noRecent'] }).waitFor();
      const catalogue = await apiCall(base, 'GET', `/app/language/${L}`, undefined, await token());
      const demo = catalogue.json.apps.find((a) => a.recommended);
      assert.ok(demo, 'a recommended app is seeded');
      const link = p.locator('[data-testid="apps-recommended"] a', { hasText: demo.name });
      await link.waitFor();
      assert.equal(await link.getAttribute('target'), '_blank');
    });

    it('uploads a PNG avatar, and refuses an SVG before and after sending it', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/personal/info`, '[data-testid="avatar-input"]');
      const uploads = [];
      const onRequest = (r) => r.url().endsWith('/ciam/v1/auth/avatar') && uploads.push(r.headers()['content-type']);
      p.on('request', onRequest);
      try {
        const input = p.locator('[data-testid="avatar-input"]');
        const error = p.locator('.avatar .field-error');
        await input.setInputFiles({ name: 'evil.svg', mimeType: 'image/svg+xml', buffer: SVG });
        await error.filter({ hasText: t['info.avatar.type'] }).waitFor();
        await input.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(1024 * 1024 + 1) });
        await error.filter({ hasText: t['info.avatar.tooLarge'] }).waitFor();
        assert.deepEqual(uploads, [], 'nothing is sent for files refused here');

        await input.setInputFiles({ name: 'evil.png', mimeType: 'image/png', buffer: SVG });
        await error.filter({ hasText: t['info.avatar.type'] }).waitFor();
        assert.deepEqual(uploads, ['image/png'], 'an SVG named .png is sent and refused by the server');

        await input.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png(16) });
        const img = p.locator('img[data-testid="avatar-img"]');
        await img.waitFor();
        await p.waitForFunction(() => {
          const i = document.querySelector('img[data-testid="avatar-img"]');
          return i?.complete && i.naturalWidth > 0; // the server re-encodes it (square PNG)
        });
        assert.equal(await img.getAttribute('alt'), t['info.avatar.alt']);
        assert.equal(await error.textContent(), '');
        const info = await apiCall(base, 'GET', '/auth/info', undefined, await token());
        assert.equal(info.json.avatar, await img.getAttribute('src'));
      } finally {
        p.off('request', onRequest);
      }
    });

    it('binds a new mail address with a code sent to it', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/personal/info`, '[data-testid="bind-mail-open"]');
      await p.getByTestId('bind-mail-open').click();
      const form = p.locator('form[data-testid="bind-mail"]');
      const next = uniqueMail(`centres-new-${L.toLowerCase()}`);
      await form.locator('[name="mail"]').fill(next);
      await form.locator('[data-testid="send-code"]').click();
      const code = await ctx.server.codeFor(next, 'bind');
      await form.locator('[name="code"]').fill(code);
      await form.locator('button[type="submit"]').click();
      // The owner sees the new address whole on its row; the form closed and the row says so.
      await p.locator('.fold', { has: p.getByTestId('bind-mail-open') }).filter({ hasText: next }).waitFor();
      await p.getByTestId('bind-mail-done').filter({ hasText: t['info.bind.mailDone'] }).waitFor();
      const login = await apiCall(base, 'POST', '/auth/login/password', { account: next, password: PASSWORD });
      assert.equal(login.status, 200, 'the new address signs in');
      s.user.account = next;
    });

    it('fits 360 px and has no axe violations on the three pages', async () => {
      const { base } = ctx.server;
      const p = await page();
      await p.setViewportSize({ width: 360, height: 780 });
      try {
        for (const [path, ready] of [
          [`/${L}/personal/info`, '[data-testid="avatar-input"]'],
          // Below 960 px one section at a time: the two-factor one by its address.
          [`/${L}/personal/secure#two-factor`, '[data-testid="totp-enable"]'],
          [`/${L}/logout`, 'form[data-testid="deactivate"]'],
        ]) {
          await open(p, base, path, ready);
          const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at 360 px`);
          await expectAccessible(p, `${path} at 360 px`);
        }
      } finally {
        await p.setViewportSize({ width: 1280, height: 900 });
      }
    });

    it('deactivates the account with the password and a confirmation', async () => {
      const { base } = ctx.server;
      const p = await page();
      await open(p, base, `/${L}/logout`, 'form[data-testid="deactivate"]');
      const form = p.locator('form[data-testid="deactivate"]');
      await form.locator('button[type="submit"]').click();
      await form.locator('[name="password"][aria-invalid="true"]').waitFor();
      await form.locator('[name="password"]').fill(PASSWORD);
      await form.locator('[name="confirm"]').check();
      await form.locator('button[type="submit"]').click();
      await p.waitForURL(`**/${L}/passport/signin**`);
      // Said on the sign-in card (a notice, not a toast that would outlive the screen).
      await p.locator('[data-testid="signin-notice"]', { hasText: t['notice.deactivated'] }).waitFor();
      assert.equal(await storage(p, 'ciam_token'), null);
      const login = await apiCall(base, 'POST', '/auth/login/password', { account: s.user.account, password: PASSWORD });
      assert.equal(login.json.reason, 'PASSWORD_ERROR');
    });

    it('no uncaught page errors', () => {
      assert.deepEqual(ctx.browser.errors, []);
    });
  });
}
