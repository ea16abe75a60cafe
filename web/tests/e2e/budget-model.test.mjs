// The budget's model checked against a real cold browser: for each route and language, the JS and
// CSS files Chromium downloads to show the screen are exactly those scripts/budget.mjs counts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DIST, expectLanding, LOCALES, ROOT, setStorage, createAccount, suite } from './harness.mjs';

const { skip, ctx } = suite();

const SAMPLE = {
  '/{lang}/passport/signin': (L) => `/${L}/passport/signin`,
  '/{lang}/passport/register': (L) => `/${L}/passport/register`,
  '/{lang}/passport/authorize': (L) => `/${L}/passport/authorize`,
  '/{lang}/find/password': (L) => `/${L}/find/password`,
  '/{lang}/embedded/signin': (L) => `/${L}/embedded/signin`,
  '/{lang}/personal/info': (L) => `/${L}/personal/info`,
  '/{lang}/personal/secure': (L) => `/${L}/personal/secure`,
  '/{lang}/agreement/{privacy,protocols,manual}': (L) => `/${L}/agreement/protocols`,
  '/{lang}/logout': (L) => `/${L}/logout`,
  '/signout': () => '/signout',
};

/**
 * Files a screen loads after its first paint on purpose, not part of showing it: the passkey
 * ceremonies (src/lib/passkey.ts), which the sign-in screen imports when the browser can autofill
 * passkeys (conditional mediation, docs/passkeys-design.md §4.2).
 */
function afterPaint() {
  try {
    const manifest = JSON.parse(readFileSync(join(DIST, '.vite/manifest.json'), 'utf8'));
    return new Set([manifest['src/lib/passkey.ts']?.file].filter(Boolean));
  } catch {
    return new Set();
  }
}

describe('budget model = what a cold browser loads', { skip }, () => {
  let report;
  it('budget.mjs reports every route', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'web/scripts/budget.mjs'), '--dist', DIST, '--json'], { encoding: 'utf8' });
    report = JSON.parse(r.stdout);
    assert.deepEqual(report.rows.map((x) => x.route).sort(), Object.keys(SAMPLE).sort());
  });

  for (const L of LOCALES) {
    it(`every route in ${L}`, async () => {
      const user = await createAccount(ctx.server);
      const page = await ctx.browser.page();
      const cdp = await ctx.browser.context.newCDPSession(page);
      const later = afterPaint();
      for (const row of report.rows) {
        const url = SAMPLE[row.route](L);
        await setStorage(page, ctx.server.base, { umi_locale: L, ciam_token: user.token, lastActionTime: String(Date.now()) });
        await cdp.send('Network.clearBrowserCache');
        const seen = new Set();
        const onResponse = (res) => {
          const p = new URL(res.url()).pathname;
          if (/^\/assets\/.+\.(js|css)$/.test(p) && !later.has(p.slice(1))) seen.add(p.slice(1));
        };
        page.on('response', onResponse);
        await expectLanding(page, ctx.server.base, url, url, { stableMs: 500 });
        page.off('response', onResponse);
        assert.deepEqual([...seen].sort(), row[L].files, `${url}: files loaded vs counted`);
      }
    });
  }
});
