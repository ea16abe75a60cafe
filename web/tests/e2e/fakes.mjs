// The platforms' fakes for the federation e2e files (federation-wechat.test.mjs,
// federation-companies.test.mjs, linked-accounts.test.mjs): one `ciam-fakes` process
// (functions/fakes: WeChat, WeCom, DingTalk and Feishu, each under its prefix, each with its
// control API `/<platform>/_control/*`) and one relay in front of it for the platforms' API
// hosts, so a test can take a platform's API down while its pages (the authorize and QR pages
// the browser visits) stay up. Call `startFakes()` at the top of a test file, before `suite()`:
// it registers the `before` and `after` hooks. `flowKit(ctx)` is what the sign-in files do in
// the page: open the sign-in, prove the phone with Ciam's own code, axe every way, and no CSP
// complaint from any page.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { dirname, join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { axeEveryRule, BIN, CI, freePort, setStorage, settled, where } from './harness.mjs';

export const FAKES_BIN = process.env.CIAM_FAKES_BIN ?? join(dirname(BIN), 'ciam-fakes');

/**
 * Starts ciam-fakes and the API relay for this file. Answers, before they run (the ports are
 * chosen now, so `ciam serve`'s environment can name them):
 * - `skip`: outside CI, the reason when ciam-fakes is missing (`cargo build -p ciam-fakes`);
 *   under CI false (a missing binary fails the `before` hook);
 * - `page(platform)`: the base of the platform's pages (`http://127.0.0.1:<port>/dingtalk`);
 * - `api(platform)`: the base of its API through the relay;
 * - `control(platform, what, body)`: POST `/<platform>/_control/<what>`;
 * - `apiDown(platform, fn)`: runs `fn` with the platform's API answering 503 through the relay.
 */
export async function startFakes() {
  const port = await freePort();
  const fakesBase = `http://127.0.0.1:${port}`;
  const relayPort = await freePort();
  const relayBase = `http://127.0.0.1:${relayPort}`;
  const down = new Set();
  let child = null;
  // Forwards method, headers and body as they are (DingTalk's JSON POST and header token).
  const relay = createServer((req, res) => {
    const platform = req.url.split('/')[1];
    if (down.has(platform)) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      return;
    }
    const out = request(`${fakesBase}${req.url}`, { method: req.method, headers: { ...req.headers, host: `127.0.0.1:${port}` } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.once('error', () => res.headersSent || res.writeHead(502).end());
    req.pipe(out);
  });
  const skip = !existsSync(FAKES_BIN) && !CI ? `e2e needs ciam-fakes at ${FAKES_BIN} (cargo build -p ciam-fakes)` : false;
  before(async () => {
    if (skip) return;
    await new Promise((r) => relay.listen(relayPort, '127.0.0.1', r));
    child = spawn(FAKES_BIN, ['--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('ciam-fakes did not start in 15 s')), 15_000);
      child.stdout.once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`ciam-fakes could not start (${FAKES_BIN}): ${e.message}`));
      });
    });
    child.stdout.resume();
    child.stderr.resume();
  });
  after(() => {
    if (relay.listening) relay.close();
    if (child?.exitCode === null) child.kill('SIGTERM');
  });
  return {
    skip,
    page: (platform) => `${fakesBase}/${platform}`,
    api: (platform) => `${relayBase}/${platform}`,
    async control(platform, what, body = {}) {
      const res = await fetch(`${fakesBase}/${platform}/_control/${what}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(res.status, 200, `ciam-fakes ${platform} ${what}: ${await res.text()}`);
    },
    async apiDown(platform, fn) {
      down.add(platform);
      try {
        return await fn();
      } finally {
        down.delete(platform);
      }
    },
  };
}

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * The page helpers of a federation file over `suite()`'s `ctx`; registers an `afterEach` that
 * fails a test during which any page reported a CSP violation (csp.test.mjs keeps every screen's).
 */
export function flowKit(ctx) {
  const complaints = [];
  let watching = false;
  /** Starts listening for CSP complaints in the suite's browser (once, at the first page). */
  async function watchPolicies() {
    if (watching) return;
    watching = true;
    const { context } = ctx.browser;
    await context.exposeBinding('__ciamFedCsp', (_source, v) => complaints.push(v));
    await context.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) => window.__ciamFedCsp?.(`${e.effectiveDirective} ${e.blockedURI} ${e.documentURI}`)),
    );
    context.on('console', (m) => /content.security.policy|trusted ?(types?|html|script)|refused to/i.test(m.text()) && complaints.push(m.text()));
  }
  afterEach(() => assert.deepEqual(complaints.splice(0), [], 'CSP violations'));

  let seq = 0;
  return {
    /** A unique subject or user name for this run. */
    unique: (tag) => `${tag}${process.pid}${Date.now().toString(36)}${seq++}`,
    /** A mainland mobile number no account has. */
    newPhone: () => `137${String((Date.now() + seq++ * 7919) % 1e8).padStart(8, '0')}`,
    /** A catalogue text with its `{name}` values put in. */
    say: (text, values) => Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{${k}}`, v), text),

    /** axe with every rule in `schemes` at `viewports` (both of each by default), on the page as it is. */
    async everyWay(page, label, viewports = VIEWPORTS, schemes = ['light', 'dark']) {
      const found = [];
      for (const vp of viewports) {
        await page.setViewportSize(vp);
        for (const colorScheme of schemes) {
          await page.emulateMedia({ colorScheme });
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          for (const v of await axeEveryRule(page)) found.push(`[${vp.width}x${vp.height} ${colorScheme}] ${v}`);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(VIEWPORTS[0]);
      assert.deepEqual(found, [], `axe (every tag) on ${label} (${where(page)})`);
    },

    /**
     * The sign-in page at `query` with a clean session; with `userAgent`, a new page whose
     * requests say it (what the server reads to choose a provider's flow), closed by the caller.
     */
    async signInPage(L, { userAgent = null, query = '' } = {}) {
      await watchPolicies();
      const page = userAgent ? await ctx.browser.context.newPage() : await ctx.browser.page();
      if (userAgent) await page.setExtraHTTPHeaders({ 'User-Agent': userAgent });
      await setStorage(page, ctx.server.base, { umi_locale: L });
      await page.evaluate(() => sessionStorage.clear());
      await page.goto(`${ctx.server.base}/${L}/passport/signin${query}`);
      await settled(page);
      return page;
    },

    /** Presses Tab until `locator` has the focus (at most 60 times). */
    async tabTo(page, locator) {
      for (let i = 0; i < 60 && !(await locator.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
      assert.ok(await locator.evaluate((e) => e === document.activeElement), `Tab reaches ${locator}`);
    },

    /** Proves `phone` on the pending screen (the code from the dev outbox). */
    async provePhone(page, phone) {
      const section = page.locator('[data-testid="federation-phone"]');
      await section.waitFor();
      await section.locator('input[name="account"]').fill(phone);
      await section.locator('[data-testid="send-code"]').click();
      const code = await ctx.server.codeFor(phone, 'link');
      await section.locator('input[name="code"]').fill(code);
      await section.locator('button[type="submit"]').click();
    },
  };
}
