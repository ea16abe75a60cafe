// The account centre on a phone (issue 34 item 2), both languages, light and dark, against a real
// `ciam serve` in real Chromium at 390 x 844. Below 960 px the centre shows one section at a time
// (the one its address names), chosen from the sections' menu above it: every section of the
// personal and the security centre is at most 1.5 screens tall until a form is opened (measured:
// the document's height), and its menu link is on the first screen; the menu works by keyboard
// (the section shown, the focus on its heading); every form opens from its row and closes again by
// keyboard alone, the focus going into the form and back to its button; the owner sees their own
// mail whole; the profile banner names only what is missing (not the company given at sign-up);
// the skip link is the first tab stop. axe with every rule on both pages, closed and with a form
// open, light and dark, phone and desktop.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { axeEveryWay, createAccount, LOCALES, ROOT, setStorage, settled, suite, uniqueMail, where } from './harness.mjs';

const { skip, ctx } = suite();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const SCHEMES = ['light', 'dark'];
/** At most 1.5 phone screens until a form is opened. */
const MAX_HEIGHT = 1.5 * PHONE.height;

/**
 * Every section's address (a page and its hash), what shows once it is drawn, and its forms by
 * the test id of the form (its button is `{id}-open`).
 */
const SECTIONS = [
  ['info', '[data-testid="profile-form-open"]', ['profile-form', 'bind-mail', 'bind-phone']],
  ['info#apps', '#apps h2', []],
  ['secure', '[data-testid="change-password-open"]', ['change-password']],
  ['secure#passkeys', '#passkeys h2', []],
  ['secure#two-factor', '[data-testid="totp-status"]', []],
  ['secure#sessions', '[data-testid="sessions"]', []],
  ['secure#privacy', '[data-testid="privacy-form-open"]', ['privacy-form']],
];

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const height = (page) => page.evaluate(() => Math.max(document.documentElement.scrollHeight, document.body.scrollHeight));
const activeTestId = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

/** Presses Tab until the element with `testId` has the focus (at most 80 times). */
async function tabTo(page, testId) {
  for (let i = 0; i < 80; i++) {
    if ((await activeTestId(page)) === testId) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${testId} on ${where(page)}`);
}

/** axe with every rule, light and dark, phone and desktop; back to the phone in light. */
const everyWay = (page, label) => axeEveryWay(page, label, [PHONE, DESKTOP], { restore: PHONE });

for (const L of LOCALES) {
  describe(`the account centre on a 390 x 844 phone (${L})`, { skip }, () => {
    const t = messages[L];
    let user;
    const open = async (page, path, ready) => {
      await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: user.token, lastActionTime: String(Date.now()) });
      await page.goto(`${ctx.server.base}/${L}/personal/${path}`);
      await page.locator(ready).first().waitFor();
      await settled(page);
      // The lists (sessions, activity, apps) load after the page: wait until the height holds.
      let last = -1;
      for (let i = 0; i < 20; i++) {
        const h = await height(page);
        if (h === last) break;
        last = h;
        await page.waitForTimeout(150);
      }
    };
    const phonePage = async () => {
      const page = await ctx.browser.page();
      await page.setViewportSize(PHONE);
      return page;
    };

    it('every section of both pages is at most 1.5 screens tall until a form is opened, light and dark', async (t) => {
      const measured = [];
      user = await createAccount(ctx.server, { account: uniqueMail(`phone-${L.toLowerCase()}`) });
      const page = await phonePage();
      for (const [path, ready, forms] of SECTIONS) {
        await open(page, path, ready);
        for (const colorScheme of SCHEMES) {
          await page.emulateMedia({ colorScheme });
          await frames(page);
          const h = await height(page);
          measured.push(`${path} ${colorScheme} ${h}`);
          assert.ok(h <= MAX_HEIGHT, `${path} (${colorScheme}) is ${h} px tall, more than ${MAX_HEIGHT} px`);
          // Every form closed: none of them is in the page.
          for (const id of forms) assert.equal(await page.getByTestId(id).count(), 0, `${id} is closed`);
        }
        await page.emulateMedia({ colorScheme: 'light' });
        // The sections' menu is on the first screen, every link of it within the viewport.
        const nav = page.getByTestId('centre-nav');
        assert.ok(await nav.isVisible(), `the sections' menu is shown on ${path}`);
        for (const box of await nav.locator('a').evaluateAll((as) => as.map((a) => a.getBoundingClientRect().toJSON()))) {
          assert.ok(box.bottom <= PHONE.height && box.right <= PHONE.width, `a section link out of the first screen: ${JSON.stringify(box)}`);
        }
      }
      t.diagnostic(`heights (px, limit ${MAX_HEIGHT}): ${measured.join('; ')}`);
    });

    it('the owner sees their own mail whole; the banner names only what is missing', async () => {
      const page = await phonePage();
      await open(page, 'info', '[data-testid="profile-form-open"]');
      const row = page.getByTestId('bind-mail-open').locator('xpath=ancestor::div[contains(@class, "fold")][1]');
      assert.ok((await row.textContent()).includes(user.account), `the mail is shown whole: ${await row.textContent()}`);
      const banner = page.getByTestId('profile-incomplete');
      const text = await banner.textContent();
      // createAccount gives a company at sign-up: only the position and the address are missing.
      assert.ok(text.includes(t['info.duty']) && text.includes(t['info.address']), text);
      assert.ok(!text.includes(t['info.company']), `the company given at sign-up is not asked for: ${text}`);
      await page.getByTestId('complete-profile').click();
      await page.getByTestId('profile-form').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'company', 'the focus is in the opened form');
    });

    it('the sections\' menu by keyboard: Enter on a link shows its section and focuses its heading', async () => {
      const page = await phonePage();
      await open(page, 'secure', '[data-testid="change-password-open"]');
      for (const id of ['two-factor', 'sessions', 'privacy']) {
        const link = `[data-testid="centre-nav"] a[data-section="${id}"]`;
        for (let i = 0; i < 80 && !(await page.evaluate((s) => document.activeElement?.matches(s), link)); i++) await page.keyboard.press('Tab');
        await page.keyboard.press('Enter');
        await page.waitForURL(`**/${L}/personal/secure#${id}`);
        await page.waitForFunction((i) => document.getElementById(i)?.contains(document.activeElement), id, { timeout: 5000 });
        assert.ok(await page.locator(`#${id}`).isVisible(), `${id} is shown`);
        assert.equal(await page.locator('#security').isVisible(), false, 'one section at a time on a phone');
        assert.equal(await page.locator(link).getAttribute('aria-current'), 'location');
        assert.ok((await height(page)) <= MAX_HEIGHT, `${id} is at most 1.5 screens`);
      }
    });

    it('each form opens from its row and closes again by keyboard, the focus into it and back', async () => {
      const page = await phonePage();
      for (const [path, , forms] of SECTIONS.filter(([, , f]) => f.length)) {
        await open(page, path, `[data-testid="${forms[0]}-open"]`);
        const closed = await height(page);
        for (const id of forms) {
          const button = `${id}-open`;
          await tabTo(page, button);
          await page.keyboard.press('Enter');
          await page.getByTestId(id).waitFor();
          assert.equal(await page.getByTestId(button).getAttribute('aria-expanded'), 'true');
          assert.ok(await page.getByTestId(id).evaluate((f) => f.contains(document.activeElement)), `the focus is in ${id}: ${await activeTestId(page)}`);
          assert.ok((await height(page)) > closed, `${id} opened in place, below its row`);
          // Back to the button (now "Cancel") and close with Space.
          await page.keyboard.press('Shift+Tab');
          assert.equal(await activeTestId(page), button, `Shift+Tab from ${id}'s first field`);
          assert.equal((await page.getByTestId(button).textContent()).trim(), t['personal.fold.cancel']);
          await page.keyboard.press('Space');
          await page.getByTestId(id).waitFor({ state: 'detached' });
          assert.equal(await activeTestId(page), button, `the focus is back on ${button}`);
          assert.equal(await page.getByTestId(button).getAttribute('aria-expanded'), 'false');
        }
        assert.ok((await height(page)) <= MAX_HEIGHT, `${path} is short again once the forms are closed`);
      }
    });

    it('the skip link is the first tab stop, shown on focus, and moves the focus to the main content', async () => {
      const page = await phonePage();
      await open(page, 'secure', '[data-testid="change-password-open"]');
      await page.evaluate(() => {
        document.activeElement?.blur?.();
        window.scrollTo(0, 0);
      });
      await page.keyboard.press('Tab');
      assert.equal(await activeTestId(page), 'skip-link');
      const box = await page.getByTestId('skip-link').boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= PHONE.height && box.width > 0, `the skip link is in view when focused: ${JSON.stringify(box)}`);
      await page.keyboard.press('Enter');
      assert.ok(await page.evaluate(() => document.getElementById('main')?.contains(document.activeElement)), 'the focus is in the main content');
    });

    it('axe with every rule: both pages, closed and with a form open, light and dark, phone and desktop', async () => {
      const page = await phonePage();
      await open(page, 'info', '[data-testid="profile-form-open"]');
      await everyWay(page, `personal centre, forms closed (${L})`);
      await page.getByTestId('bind-phone-open').click();
      await page.getByTestId('bind-phone').waitFor();
      await everyWay(page, `personal centre, the phone form open (${L})`);
      await open(page, 'secure', '[data-testid="change-password-open"]');
      await everyWay(page, `security centre, forms closed (${L})`);
      await page.getByTestId('change-password-open').click();
      await page.getByTestId('change-password').waitFor();
      await everyWay(page, `security centre, the password form open (${L})`);
    });
  });
}
