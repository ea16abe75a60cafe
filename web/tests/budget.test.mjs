// The size budget on the built dist: scripts/budget.mjs must pass (sign-in initial JS at most
// 110 KB gzipped, every other route at most 130 KB) and must fail when a route goes over.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

const web = new URL('..', import.meta.url).pathname;
const dist = process.env.CIAM_WEB_DIST ?? join(web, 'dist');
const script = join(web, 'scripts/budget.mjs');
const CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const built = existsSync(join(dist, '.vite/manifest.json'));
const skip = !built && !CI ? `no built dist with a manifest at ${dist} (npm run build --workspace web)` : false;

const run = (...args) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

describe('budget', { skip }, () => {
  it('the built dist has a manifest', () => {
    assert.ok(built, `${dist}/.vite/manifest.json (build.manifest: true in vite.config.ts)`);
  });

  it('sign-in loads at most 110 KB of JS gzipped and every other route at most 130 KB, in both languages', () => {
    const r = run('--dist', dist, '--json');
    const report = JSON.parse(r.stdout);
    assert.equal(report.gzipLevel, 9);
    assert.equal(report.rows.length, 10);
    for (const row of report.rows) {
      for (const l of ['zh-CN', 'en-US']) {
        // The entry chunk and its imports are part of every route, plus the route's own chunk.
        assert.ok(row[l].js.gz > report.entryJsGz, `${row.route} ${l} counts more than the entry`);
        assert.ok(row[l].css.gz > 0, `${row.route} ${l} has CSS`);
      }
    }
    assert.equal(report.rows[0].route, '/{lang}/passport/signin');
    assert.ok(report.signinJsGz <= 110_000, `sign-in initial JS ${report.signinJsGz} B > 110 KB`);
    for (const row of report.rows.slice(1)) {
      for (const l of ['zh-CN', 'en-US']) assert.ok(row[l].js.gz <= 130_000, `${row.route} ${l}: ${row[l].js.gz} B > 130 KB`);
    }
    assert.deepEqual(report.over, []);
    assert.equal(r.status, 0, r.stderr);
  });

  /** A dist whose chunk `big` (a screen's source path) is about 122 KB gzipped, the rest tiny. */
  function fakeDist(big) {
    const fake = mkdtempSync(join(tmpdir(), 'ciam-budget-'));
    mkdirSync(join(fake, '.vite'));
    mkdirSync(join(fake, 'assets'));
    const file = (name, bytes) => writeFileSync(join(fake, 'assets', name), bytes);
    file('index.js', 'console.log(1)');
    file('big.js', randomBytes(120_000).toString('base64')); // base64 of noise: ~122 KB gzipped
    file('small.js', 'export default 1');
    file('m.js', 'export default {}');
    file('a.css', 'a{}');
    const chunks = {
      'index.html': { file: 'assets/index.js', isEntry: true, css: ['assets/a.css'] },
      'src/i18n/compiled/zh-CN.json': { file: 'assets/m.js', isDynamicEntry: true },
      'src/i18n/compiled/en-US.json': { file: 'assets/m.js', isDynamicEntry: true },
      // Loaded with the screens that show a new-password field (ON_FIRST_RENDER in budget.mjs).
      'src/components/password-checklist.tsx': { file: 'assets/m.js', isDynamicEntry: true },
    };
    // The screens' message bundles, as the router wraps them.
    const bundles = new Set([...readFileSync(join(web, 'src/app/router.tsx'), 'utf8').matchAll(/bundle="(\w+)"/g)].map((m) => m[1]));
    for (const l of ['zh-CN', 'en-US']) {
      for (const b of bundles) chunks[`src/i18n/compiled/${l}.${b}.json`] = { file: 'assets/m.js', isDynamicEntry: true };
    }
    for (const k of [
      'auth/signin', 'auth/register', 'auth/authorize', 'auth/find-password', 'auth/embedded-signin', 'personal/info',
      'personal/secure', 'agreement/agreement', 'logout/logout', 'logout/signout',
    ]) {
      const key = `src/features/${k}.tsx`;
      chunks[key] = { file: key === big ? 'assets/big.js' : 'assets/small.js', isDynamicEntry: true };
    }
    writeFileSync(join(fake, '.vite/manifest.json'), JSON.stringify(chunks));
    return fake;
  }

  it('fails (exit 1) when the sign-in route is over 110 KB', () => {
    const fake = fakeDist('src/features/auth/signin.tsx');
    try {
      const r = run('--dist', fake);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /sign-in initial JS 12\d\.\d KB gzipped \(limit 110 KB\)/);
      assert.match(r.stderr, /OVER BUDGET/);
      assert.equal(run('--dist', fake, '--limit-kb', '1000').status, 0);
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  it('passes a 122 KB screen other than sign-in, and fails it past 130 KB', () => {
    const fake = fakeDist('src/features/personal/secure.tsx');
    try {
      const ok = run('--dist', fake);
      assert.equal(ok.status, 0, ok.stdout + ok.stderr);
      const r = run('--dist', fake, '--other-limit-kb', '50');
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /over 50 KB: \/\{lang\}\/personal\/secure: OVER BUDGET/);
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});
