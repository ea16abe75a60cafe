// The paint budget (issue 12 §6), through `budget.mjs --paint`. A timing, not a behaviour: it lives
// outside web/tests (the e2e files run two at a time there) and scripts/test.sh runs it on its own,
// after the builds and before cargo's tests start, so that the 4x CPU slowdown slows the page and
// not the other suites' load (beside them, on a busy CI machine, a median that is 1.6 s alone went
// over the 2.5 s limit).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const web = new URL('..', import.meta.url).pathname;
const dist = process.env.CIAM_WEB_DIST ?? join(web, 'dist');
const script = join(web, 'scripts/budget.mjs');
const CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

// The paint budget (issue 12 §6), through `budget.mjs --paint`: sign-in's FCP <= 2.0 s and LCP <=
// 2.5 s, median of 5 cold loads per language in Chromium through `ciam serve` (CIAM_BIN, default
// target/debug/ciam), 4x CPU slowdown, 150 ms RTT / 1.6 Mbps. Skipped outside CI when the binary,
// Chromium or the build is missing; under CI=true a missing part fails.
const root = join(web, '..');
const BIN = process.env.CIAM_BIN ?? join(root, 'target/debug/ciam');
const CHROMIUM = process.env.CIAM_CHROMIUM ?? '/usr/bin/chromium';
const paintMissing = [
  ...(existsSync(BIN) ? [] : [`the ciam binary at ${BIN}`]),
  ...(existsSync(CHROMIUM) ? [] : [`chromium at ${CHROMIUM}`]),
  ...(existsSync(join(dist, 'index.html')) ? [] : [`a built dist at ${dist}`]),
];
const paintSkip = paintMissing.length && !CI ? `paint budget needs ${paintMissing.join('; ')}` : false;

describe('paint budget', { skip: paintSkip }, () => {
  it('sign-in: median FCP <= 2.0 s and LCP <= 2.5 s in both languages (4x CPU, 150 ms RTT, 1.6 Mbps, cold)', { timeout: 300_000 }, (t) => {
    assert.deepEqual(paintMissing, [], 'everything the paint measurement needs is there');
    const r = spawnSync(process.execPath, [script, '--paint', '--json', '--dist', dist], {
      encoding: 'utf8',
      env: { ...process.env, CIAM_BIN: BIN, CIAM_CHROMIUM: CHROMIUM },
      timeout: 290_000,
    });
    // Every figure, for the log.
    for (const line of r.stderr.split('\n')) if (line) t.diagnostic(line);
    assert.equal(r.error, undefined, String(r.error));
    const report = JSON.parse(r.stdout);
    assert.equal(report.fcpLimitMs, 2000);
    assert.equal(report.lcpLimitMs, 2500);
    assert.equal(report.cpuSlowdown, 4);
    assert.equal(report.rttMs, 150);
    assert.equal(report.mbps, 1.6);
    assert.deepEqual(Object.keys(report.locales), ['zh-CN', 'en-US']);
    for (const [L, x] of Object.entries(report.locales)) {
      assert.equal(x.loads.length, 5, `${L}: five loads`);
      // The emulation is on: the HTML alone takes at least one round trip.
      for (const load of x.loads) assert.ok(load.html >= 150, `${L}: HTML after ${load.html} ms (< 150 ms RTT: no network emulation?)`);
      assert.ok(x.fcp <= 2000, `${L}: median FCP ${x.fcp} ms > 2000 ms`);
      assert.ok(x.lcp <= 2500, `${L}: median LCP ${x.lcp} ms > 2500 ms`);
    }
    assert.equal(r.status, 0, r.stderr);
  });

  it('fails (exit 1) when a median is over the limit', { timeout: 120_000 }, () => {
    assert.deepEqual(paintMissing, [], 'everything the paint measurement needs is there');
    const r = spawnSync(process.execPath, [script, '--paint', '--runs', '1', '--dist', dist, '--fcp-limit-ms', '100', '--lcp-limit-ms', '100'], {
      encoding: 'utf8',
      env: { ...process.env, CIAM_BIN: BIN, CIAM_CHROMIUM: CHROMIUM },
      timeout: 110_000,
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /paint: sign-in zh-CN, median of 1: FCP \d+ ms \(limit 100\), LCP \d+ ms \(limit 100\): OVER BUDGET/);
    assert.match(r.stderr, /paint: sign-in en-US, median of 1: .*OVER BUDGET/);
  });
});
