// Issue 12 §3 and §6 through the real `ciam serve`: the build's .br/.gz siblings chosen by
// Accept-Encoding (with Vary), hashed assets cached for good, HTML revalidated, 404 for a missing
// file; a browser in British English gets the English app, and a language segment in the wrong
// case lands on the same page in its canonical form.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompress } from '../../scripts/precompress.mjs';
import { DIST, expectLanding, launchBrowser, missing, requirements, setStorage, settled, startServer, storage, where } from './harness.mjs';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const skip = requirements();
const ctx = { dist: null, server: null, browsers: [] };

before(async () => {
  if (skip) return;
  const m = missing();
  if (m.length) throw new Error(`e2e: missing ${m.join('; ')}`);
  // The build of `npm run build` with its siblings, in a copy (whatever built DIST, the
  // siblings are there and fresh; DIST itself is not written to).
  ctx.dist = mkdtempSync(join(tmpdir(), 'ciam-e2e-precompressed-'));
  cpSync(DIST, ctx.dist, { recursive: true });
  precompress(ctx.dist);
  ctx.server = await startServer({ dist: ctx.dist });
});
after(async () => {
  for (const b of ctx.browsers) await b.close();
  await ctx.server?.stop();
  if (ctx.dist) rmSync(ctx.dist, { recursive: true, force: true });
});

/** GET over plain HTTP, the body as sent (not decoded). */
function get(path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${ctx.server.base}${path}`, { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The entry script and stylesheet of the built index.html. */
function entryFiles() {
  const html = readFileSync(join(ctx.dist, 'index.html'), 'utf8');
  const js = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const css = /<link[^>]+href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
  assert.ok(js && css, 'index.html names its script and stylesheet under /assets/');
  return { js, css };
}

const vary = (h) => String(h.vary ?? '').toLowerCase().split(',').map((s) => s.trim());

describe('ciam serve: compressed, cached assets', { skip }, () => {
  it('brotli, gzip or the file itself by Accept-Encoding, with Vary, cached for good', async () => {
    const { js, css } = entryFiles();
    for (const path of [js, css]) {
      const raw = readFileSync(join(ctx.dist, path));
      const cases = [
        ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
        ['gzip, deflate', 'gzip', gunzipSync],
        ['identity', undefined, (b) => b],
        [undefined, undefined, (b) => b],
      ];
      for (const [accept, encoding, decode] of cases) {
        const res = await get(path, accept ? { 'accept-encoding': accept } : {});
        const label = `${path} with Accept-Encoding ${accept}`;
        assert.equal(res.status, 200, label);
        assert.equal(res.headers['content-encoding'], encoding, label);
        assert.ok(decode(res.body).equals(raw), `${label}: the body is the file`);
        if (encoding) assert.ok(res.body.length < raw.length * 0.5, `${label}: ${res.body.length} of ${raw.length} bytes`);
        assert.ok(vary(res.headers).includes('accept-encoding'), `${label}: Vary`);
        assert.equal(res.headers['cache-control'], IMMUTABLE, label);
        assert.match(res.headers['content-type'], path.endsWith('.js') ? /javascript/ : /text\/css/, label);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
      }
    }
  });

  it('HTML is revalidated (no-cache), compressed too', async () => {
    for (const path of ['/', '/index.html', '/zh-CN/passport/signin', '/en-US/personal/info?x=1']) {
      const res = await get(path, { 'accept-encoding': 'br, gzip' });
      assert.equal(res.status, 200, path);
      assert.match(res.headers['content-type'], /^text\/html/, path);
      assert.equal(res.headers['cache-control'], 'no-cache', path);
      assert.equal(res.headers['content-encoding'], 'br', path);
      assert.match(brotliDecompressSync(res.body).toString('utf8'), /<div id="root">/, path);
      assert.equal(res.headers['x-frame-options'], 'DENY', path);
    }
  });

  it('a missing file is 404, not the app', async () => {
    for (const path of ['/favicon.ico', '/robots.txt', '/assets/nope.js', '/assets/index-nope.css']) {
      const res = await get(path, { 'accept-encoding': 'br, gzip' });
      assert.equal(res.status, 404, path);
      assert.ok(!res.body.toString('utf8').includes('<div id="root">'), `${path}: not index.html`);
      assert.notEqual(res.headers['cache-control'], IMMUTABLE, path);
      assert.equal(res.headers['x-frame-options'], 'DENY', path);
    }
    // A route of the app still gets it.
    assert.equal((await get('/zh-CN/passport/login')).status, 200);
  });

  it('Chromium gets the entry compressed and cacheable', async () => {
    const browser = await launchBrowser({ locale: 'zh-CN' });
    ctx.browsers.push(browser);
    const page = await browser.page();
    const scripts = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/assets/') && r.url().endsWith('.js')) scripts.push(r);
    });
    await page.goto(`${ctx.server.base}/zh-CN/passport/signin`);
    await settled(page);
    assert.ok(scripts.length > 0, 'scripts loaded');
    for (const r of scripts) {
      const h = await r.allHeaders();
      const sent = String((await r.request().allHeaders())['accept-encoding'] ?? '');
      const want = sent.includes('br') ? 'br' : 'gzip';
      assert.equal(h['content-encoding'], want, `${r.url()} (Accept-Encoding: ${sent})`);
      assert.equal(h['cache-control'], IMMUTABLE, r.url());
      assert.ok(vary(h).includes('accept-encoding'), r.url());
    }
  });
});

describe('ciam serve: language', { skip }, () => {
  it('a language segment in the wrong case is redirected by the server, same page, query kept', async () => {
    for (const [from, to] of [
      ['/zh-cn/passport/register?x=1', '/zh-CN/passport/register?x=1'],
      ['/EN-us/find/password', '/en-US/find/password'],
    ]) {
      const res = await get(from);
      assert.equal(res.status, 308, from);
      assert.equal(res.headers.location, to, from);
    }
  });

  it('/zh-cn/passport/register lands on /zh-CN/passport/register (sign-up, not sign-in)', async () => {
    const browser = await launchBrowser({ locale: 'zh-CN' });
    ctx.browsers.push(browser);
    const page = await browser.page();
    await setStorage(page, ctx.server.base, { umi_locale: 'zh-CN' });
    await expectLanding(page, ctx.server.base, '/zh-cn/passport/register?x=1', '/zh-CN/passport/register?x=1');
    await expectLanding(page, ctx.server.base, '/ZH-CN/passport/register', '/zh-CN/passport/register');
  });

  it('a browser in en-GB gets the English app (and en-US is stored)', async (t) => {
    const location = await (await fetch(`${ctx.server.base}/ciam/v1/auth/location`, { headers: { 'accept-language': 'en-GB,en;q=0.9' } })).json();
    if (location.language !== 'en-US') {
      // The location call may override the browser's language (spec §4); until the server maps
      // en-* as the app does (ciam_core::Lang::from_accept_language), it answers zh-CN here.
      t.todo(`/auth/location answers ${location.language} for en-GB`);
    }
    const browser = await launchBrowser({ locale: 'en-GB' });
    ctx.browsers.push(browser);
    const page = await browser.page();
    await setStorage(page, ctx.server.base, {});
    await page.goto(`${ctx.server.base}/passport/register`);
    await settled(page);
    for (let i = 0; i < 50 && (await storage(page, 'umi_locale')) === null; i++) await new Promise((r) => setTimeout(r, 100));
    await settled(page);
    assert.equal(where(page), '/en-US/passport/register');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en-US');
    assert.equal(await storage(page, 'umi_locale'), 'en-US');
  });
});
