// Spec §7 and §9 in real Chromium against `ciam serve`, in both languages:
//  - an uncaught error, an unhandled rejection and a route error each reach the server as one
//    report (read from ciam serve's log), sanitised: no query string, no token, no mail address;
//    the route error shows the localised error screen;
//  - a build made with CIAM_ERROR_REPORTS=off sends no report at all (and ships no reporter);
//  - the footer shows the release string, equal to GET /ciam/v1/version;
//  - the website link goes to the Chinese site under /zh-CN/..., to the English one under
//    /en-US/..., and follows CIAM_WEBSITE_ZH / CIAM_WEBSITE_EN when a build sets them.
// The errors are raised by code evaluated in the page, and the route error by the route that
// only a CIAM_TEST_HOOKS=on build has (never the production build, checked below).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  builtScripts,
  buildWeb,
  DIST,
  expectAccessible,
  launchBrowser,
  LOCALES,
  loggedReports,
  requirements,
  ROOT,
  setStorage,
  settled,
  startServer,
  where,
} from './harness.mjs';

const skip = requirements();
const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const RELEASE = `release.${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}`;
const SITES = { zh: 'https://zh.site.test/', en: 'https://en.site.test/' };
const TOKEN = '0123456789abcdef0123456789abcdef.q2D9s7Lx0aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3w';
/** Query and fragment of every page opened here: what a report must never carry. */
const SECRET_QUERY = `?serviceUrl=https://app.example.com/cb&cTicket=ST-abcdef123456&token=${TOKEN}#frag`;

/** Two servers: one with reports on (the test hooks build), one with reports off. */
const on = { dist: null, server: null, browser: null };
const off = { dist: null, server: null, browser: null };

before(async () => {
  if (skip) return;
  on.dist = buildWeb({ CIAM_TEST_HOOKS: 'on' });
  off.dist = buildWeb({ CIAM_TEST_HOOKS: 'on', CIAM_ERROR_REPORTS: 'off', CIAM_WEBSITE_ZH: SITES.zh, CIAM_WEBSITE_EN: SITES.en });
  for (const s of [on, off]) {
    s.server = await startServer({ dist: s.dist });
    s.browser = await launchBrowser();
    // Every request to the report route, whichever page sends it.
    s.posts = [];
    s.browser.context.on('request', (r) => {
      if (new URL(r.url()).pathname === '/ciam/v1/client-errors') s.posts.push(r.postData() ?? '');
    });
  }
});
after(async () => {
  for (const s of [on, off]) {
    await s.browser?.close();
    await s.server?.stop();
    if (s.dist) rmSync(s.dist, { recursive: true, force: true });
  }
});

/** Opens `path` (with the secret query) in `s`'s browser in language L. */
async function openIn(s, L, path) {
  const page = await s.browser.page();
  await setStorage(page, s.server.base, { umi_locale: L });
  await page.goto(`${s.server.base}${path}${SECRET_QUERY}`);
  await settled(page);
  return page;
}

/** Throws `message` uncaught, then rejects a promise with `reason` and leaves it unhandled. */
function raise(page, message, reason) {
  return page.evaluate(
    ([m, r]) => {
      setTimeout(() => {
        throw new Error(m);
      }, 0);
      void Promise.reject(new Error(r));
    },
    [message, reason],
  );
}

/** The reports logged whose message contains `marker`, waiting until there are `n` (5 s). */
async function reportsWith(server, marker, n) {
  for (let i = 0; i < 50; i++) {
    const hits = loggedReports(server).filter((r) => r.error.includes(marker));
    if (hits.length >= n) return hits;
    await sleep(100);
  }
  return loggedReports(server).filter((r) => r.error.includes(marker));
}

function expectSanitised(report, label) {
  const text = JSON.stringify(report);
  for (const secret of ['ann@example.com', '@', TOKEN.slice(0, 12), TOKEN.slice(33, 45), 'cTicket', 'serviceUrl', '?', '#frag', '13800138000']) {
    assert.ok(!text.includes(secret), `${label}: "${secret}" reached the server: ${text}`);
  }
}

for (const L of LOCALES) {
  describe(`client error reports (${L})`, { skip }, () => {
    it('an uncaught error and an unhandled rejection each arrive once, sanitised', async () => {
      const page = await openIn(on, L, `/${L}/passport/signin`);
      // Short, with few digits: scrubbing leaves it alone.
      const marker = `${L}-m${Date.now().toString(36)}`;
      const message = `boom ${marker} for ann@example.com, phone 13800138000, token ${TOKEN}, at /x?cTicket=ST-1`;
      await raise(page, message, `rejected ${marker} with ann@example.com`);
      // The same two again: a page load reports each distinct error once.
      await raise(page, message, `rejected ${marker} with ann@example.com`);
      const reports = await reportsWith(on.server, marker, 2);
      await sleep(500);
      const all = loggedReports(on.server).filter((r) => r.error.includes(marker));
      assert.equal(all.length, 2, JSON.stringify(all));
      const byKind = Object.fromEntries(reports.map((r) => [r.kind, r]));
      assert.deepEqual(Object.keys(byKind).sort(), ['error', 'rejection']);
      for (const r of reports) {
        assert.equal(r.version, RELEASE);
        assert.equal(r.route, `/${L}/passport/signin`);
        expectSanitised(r, r.kind);
      }
      assert.equal(byKind.error.error, `Error: boom ${marker} for [email], phone [number], token [token].[token], at /x`);
      assert.equal(byKind.rejection.error, `Error: rejected ${marker} with [email]`);
      // What left the browser was sanitised already, not only what the server logged.
      for (const body of on.posts) expectSanitised(JSON.parse(body), 'request body');
    });

    it('a route error shows the localised error screen and is reported once', async () => {
      const t = messages[L];
      const before = loggedReports(on.server).filter((r) => r.kind === 'route' && r.route === `/${L}/test/throw`).length;
      const page = await openIn(on, L, `/${L}/test/throw`);
      const screen = page.locator('[data-testid="error-screen"]');
      await screen.waitFor();
      assert.equal(where(page), `/${L}/test/throw${SECRET_QUERY.split('#')[0]}`);
      assert.equal(await screen.getAttribute('role'), 'alert');
      assert.equal((await screen.locator('h1').textContent()).trim(), t['failure.title']);
      assert.equal((await screen.locator('p').textContent()).trim(), t['failure.text']);
      assert.equal((await screen.locator('button').textContent()).trim(), t['failure.reload']);
      const back = screen.getByRole('link', { name: t['failure.signin'] });
      assert.equal(await back.getAttribute('href'), `/${L}/passport/signin`);
      // The shell stays around it: the footer is there too.
      assert.equal((await page.locator('footer [data-testid="version"]').textContent()).trim(), RELEASE);
      await expectAccessible(page, `error screen (${L})`);
      let reports = [];
      for (let i = 0; i < 50 && reports.length <= before; i++) {
        await sleep(100);
        reports = loggedReports(on.server).filter((r) => r.kind === 'route' && r.route === `/${L}/test/throw`);
      }
      await sleep(300);
      reports = loggedReports(on.server).filter((r) => r.kind === 'route' && r.route === `/${L}/test/throw`);
      assert.equal(reports.length, before + 1, JSON.stringify(reports));
      const r = reports[reports.length - 1];
      assert.equal(r.version, RELEASE);
      assert.equal(r.error, 'Error: test hook: route error for [email], code [number], /x');
      expectSanitised(r, 'route');
      await back.click();
      await page.waitForURL(`**/${L}/passport/signin`);
      await page.locator('form[data-testid="signin-password"]').waitFor();
    });

    it('a build made with CIAM_ERROR_REPORTS=off sends nothing, and still shows the error screen', async () => {
      const page = await openIn(off, L, `/${L}/passport/signin`);
      await raise(page, `off ${L} ann@example.com`, `off rejected ${L}`);
      await page.goto(`${off.server.base}/${L}/test/throw`);
      await page.locator('[data-testid="error-screen"] h1').waitFor();
      assert.equal((await page.locator('[data-testid="error-screen"] h1').textContent()).trim(), messages[L]['failure.title']);
      await sleep(1500);
      assert.deepEqual(off.posts, [], 'no request to /ciam/v1/client-errors');
      assert.deepEqual(loggedReports(off.server), [], 'no report logged');
    });
  });

  describe(`version and website link (${L})`, { skip }, () => {
    it('the footer shows the release string the API serves', async () => {
      const api = await (await fetch(`${on.server.base}/ciam/v1/version`)).json();
      assert.deepEqual(api, { version: RELEASE });
      for (const path of [`/${L}/passport/signin`, `/${L}/agreement/privacy`]) {
        const page = await openIn(on, L, path);
        const version = page.locator('footer [data-testid="version"]');
        await version.waitFor();
        assert.equal((await version.textContent()).trim(), api.version, path);
      }
    });

    it('the website link goes to the site of the path, as configured at build time', async () => {
      const want = L === 'zh-CN' ? SITES.zh : SITES.en;
      const page = await openIn(off, L, `/${L}/passport/signin`);
      const link = page.locator('footer [data-testid="website"]');
      assert.equal(await link.getAttribute('href'), want);
      assert.equal((await link.textContent()).trim(), messages[L]['app.website']);
      // The company site is not reachable from the test machine: answer for it.
      await page.route(`${want}**`, (r) => r.fulfill({ contentType: 'text/html', body: '<title>site</title>' }));
      await link.click();
      await page.waitForURL(want);
      // The production build's defaults differ by language too.
      const prod = await openIn(on, L, `/${L}/passport/signin`);
      const href = await prod.locator('footer [data-testid="website"]').getAttribute('href');
      assert.match(href, L === 'zh-CN' ? /zh/ : /\/en\//);
    });
  });
}

describe('what each build ships', { skip }, () => {
  it('the production build has no test hook; the flagged build has no reporter', () => {
    const production = builtScripts(DIST);
    // The reporter's address is made from its route key (lib/api-url.ts's `url`).
    assert.ok(production.includes('POST /client-errors'), 'the production build reports');
    assert.ok(!production.includes('test hook'), 'no test route in the production build');
    const flagged = builtScripts(off.dist);
    assert.ok(!flagged.includes('client-errors'), 'no reporter in the CIAM_ERROR_REPORTS=off build');
    assert.ok(!flagged.includes('unhandledrejection'), 'no error listener in the CIAM_ERROR_REPORTS=off build');
  });
});
