// Sign in with WeChat in real Chromium (issue 33 "Must show", docs/federation-design.md §3.1,
// §4.1, §5.2): `ciam-fakes` plays WeChat (its website QR login and its Official Account
// authorization, answering as the platform documents; the person who "scans and approves" is set
// through its control API), `ciam serve` is pointed at it through the environment, both locales:
//  - a new WeChat user signs up through the QR login: the "Or sign in with" row, the phone proof
//    with Ciam's own code, the sign-up's fields; then the next WeChat sign-in goes straight in;
//  - a WeChat user whose proven phone has an account is linked to it after that proof;
//  - inside WeChat (a MicroMessenger user agent) the Official Account's authorization is used;
//  - a snapshot-mode user is refused with what to tap; a person who declines at WeChat, and WeChat
//    down, are said in words naming WeChat.
// Every federation screen on the way is checked with axe and every rule, light and dark, 1280 and
// 390 px wide, and no page reports a CSP violation.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { axeEveryRule, BIN, CI, createAccount, freePort, LOCALES, ROOT, setStorage, settled, storage, suite, where } from './harness.mjs';

const messages = Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
const FAKES_BIN = process.env.CIAM_FAKES_BIN ?? join(dirname(BIN), 'ciam-fakes');
const MICROMESSENGER =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.47.2560(0x28002F35) NetType/WIFI Language/zh_CN';
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

// ciam-fakes' registered WeChat apps (functions/fakes/src/wechat.rs).
const fakesPort = await freePort();
const FAKES = `http://127.0.0.1:${fakesPort}`;
let fakes = null;
// WeChat's API host (the code exchange, the profile) goes through this relay to the fake, so a
// test can take the API down while the browser's pages stay up.
const apiPort = await freePort();
let apiDown = false;
const relay = createServer((req, res) => {
  if (apiDown) {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    return;
  }
  fetch(`${FAKES}/wechat${req.url}`).then(
    async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer())),
    () => res.writeHead(502).end(),
  );
});
// Outside CI a missing ciam-fakes skips the file (`cargo build -p ciam-fakes`); under CI it fails.
const noFakes = !existsSync(FAKES_BIN) && !CI ? `e2e needs ciam-fakes at ${FAKES_BIN} (cargo build -p ciam-fakes)` : false;
before(async () => {
  if (noFakes) return;
  await new Promise((r) => relay.listen(apiPort, '127.0.0.1', r));
  fakes = spawn(FAKES_BIN, ['--port', String(fakesPort)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ciam-fakes did not start in 15 s')), 15_000);
    fakes.stdout.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    fakes.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`ciam-fakes could not start (${FAKES_BIN}): ${e.message}`));
    });
  });
});
after(() => {
  if (relay.listening) relay.close();
  if (fakes?.exitCode === null) fakes.kill('SIGTERM');
});

const { skip: missing, ctx } = suite({
  server: {
    env: {
      CIAM_WECHAT_APP_ID: 'wxfakeweb0000001',
      CIAM_WECHAT_APP_SECRET: 'fake-web-app-secret',
      CIAM_WECHAT_OA_APP_ID: 'wxfakeoa00000001',
      CIAM_WECHAT_OA_APP_SECRET: 'fake-oa-app-secret',
      CIAM_WECHAT_OPEN_BASE: `${FAKES}/wechat`,
      CIAM_WECHAT_API_BASE: `http://127.0.0.1:${apiPort}`,
    },
  },
});

const skip = missing || noFakes;

// The screens keep the CSP as every screen (csp.test.mjs): no violation reported by any page.
const policyComplaints = [];
let watching = false;
/** Starts listening for CSP complaints in the suite's browser (once, at the first page). */
async function watchPolicies() {
  if (watching) return;
  watching = true;
  const { context } = ctx.browser;
  await context.exposeBinding('__ciamFedCsp', (_source, v) => policyComplaints.push(v));
  await context.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) => window.__ciamFedCsp?.(`${e.effectiveDirective} ${e.blockedURI} ${e.documentURI}`)),
  );
  context.on('console', (m) => /content.security.policy|trusted ?(types?|html|script)|refused to/i.test(m.text()) && policyComplaints.push(m.text()));
}
afterEach(() => assert.deepEqual(policyComplaints.splice(0), [], 'CSP violations'));

/** ciam-fakes' control API for WeChat. */
async function control(what, body) {
  const res = await fetch(`${FAKES}/wechat/_control/${what}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, `ciam-fakes ${what}: ${await res.text()}`);
}
/** The next person to scan and approve (or decline) at WeChat. */
const nextPerson = (person) => control('next-user', person);

let seq = 0;
const unique = (tag) => `${tag}${process.pid}${Date.now().toString(36)}${seq++}`;
/** A mainland mobile number no account has. */
const newPhone = () => `137${String((Date.now() + seq++ * 7919) % 1e8).padStart(8, '0')}`;
const say = (text, values) => Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{${k}}`, v), text);

/** axe with every rule in both schemes at both viewports, on the page as it is. */
async function everyWay(page, label) {
  const found = [];
  for (const vp of VIEWPORTS) {
    await page.setViewportSize(vp);
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const v of await axeEveryRule(page)) found.push(`[${vp.width}x${vp.height} ${colorScheme}] ${v}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(VIEWPORTS[0]);
  assert.deepEqual(found, [], `axe (every tag) on ${label} (${where(page)})`);
}

/**
 * The sign-in page at `query` with a clean session; with `userAgent`, a new page whose requests
 * say it (what the server reads to choose WeChat's flow), closed by the caller.
 */
async function signInPage(L, { userAgent = null, query = '' } = {}) {
  await watchPolicies();
  const page = userAgent ? await ctx.browser.context.newPage() : await ctx.browser.page();
  if (userAgent) await page.setExtraHTTPHeaders({ 'User-Agent': userAgent });
  await setStorage(page, ctx.server.base, { umi_locale: L });
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${ctx.server.base}/${L}/passport/signin${query}`);
  await settled(page);
  return page;
}

/** Presses Tab until `locator` has the focus (at most 60 times). */
async function tabTo(page, locator) {
  for (let i = 0; i < 60 && !(await locator.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
  assert.ok(await locator.evaluate((e) => e === document.activeElement), `Tab reaches ${locator}`);
}

/** Proves `phone` on the pending screen (the code from the dev outbox). */
async function provePhone(page, phone) {
  const section = page.locator('[data-testid="federation-phone"]');
  await section.waitFor();
  await section.locator('input[name="account"]').fill(phone);
  await section.locator('[data-testid="send-code"]').click();
  const code = await ctx.server.codeFor(phone, 'link');
  await section.locator('input[name="code"]').fill(code);
  await section.locator('button[type="submit"]').click();
}

for (const L of LOCALES) {
  describe(`sign in with WeChat (${L})`, { skip }, () => {
    const t = messages[L];
    const wechat = t['federation.wechat'];

    it('a new user: the QR login, the phone proof and the sign-up; the next sign-in goes straight in', async () => {
      const unionid = unique('ounew');
      await nextPerson({ unionid, nickname: '张三' });
      const page = await signInPage(L, { query: '?from=e2e' });
      const row = page.locator('[data-testid="federation-row"]');
      await row.waitFor();
      assert.equal(await row.locator('h2').textContent(), t['federation.row']);
      assert.equal(await page.locator('[data-testid="federation-wechat"]').textContent(), wechat);
      await everyWay(page, `the "Or sign in with" row (${L})`);
      // Nothing started by itself.
      assert.equal(where(page), `/${L}/passport/signin?from=e2e`);
      // With the keyboard only.
      await tabTo(page, page.locator('[data-testid="federation-wechat"]'));
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="federation-phone"]').waitFor();
      assert.equal(where(page), `/${L}/passport/signin?from=e2e`, 'the pending token left the address');
      await everyWay(page, `the phone proof (${L})`);
      const phone = newPhone();
      await provePhone(page, phone);
      const signUp = page.locator('[data-testid="federation-signup"]');
      await signUp.waitFor();
      assert.equal(await signUp.locator('h2').textContent(), t['federation.signUpTitle']);
      assert.equal(await signUp.locator('input[name="userName"]').inputValue(), '', 'the nickname is not the name');
      await signUp.locator('button[type="submit"]').click();
      await signUp.locator('[aria-invalid="true"]').first().waitFor();
      await everyWay(page, `the sign-up with errors (${L})`);
      // With the keyboard only: the focus went to the first field in error.
      const userName = unique('wx');
      await tabTo(page, signUp.locator('input[name="userName"]'));
      await page.keyboard.type(userName);
      await tabTo(page, signUp.locator('input[name="company"]'));
      await page.keyboard.type('Acme Ltd');
      await tabTo(page, signUp.locator('input[name="acceptTerms"]'));
      await page.keyboard.press('Space');
      await tabTo(page, signUp.locator('button[type="submit"]'));
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/${L}/personal/info?from=e2e`);
      assert.ok(await storage(page, 'ciam_token'), 'signed in');
      const info = await (await fetch(`${ctx.server.base}/ciam/v1/auth/info`, { headers: { authorization: `Bearer ${await storage(page, 'ciam_token')}` } })).json();
      assert.equal(info.userName, userName);
      // Signed out, the same WeChat user comes straight back in (a linked subject: a login code).
      const again = await signInPage(L);
      await again.locator('[data-testid="federation-wechat"]').click();
      await again.waitForURL(`**/${L}/personal/info`);
    });

    it('an existing account is linked after its phone is proven, and only then', async () => {
      const phone = newPhone();
      const user = await createAccount(ctx.server, { account: phone });
      await nextPerson({ unionid: unique('oulink') });
      const page = await signInPage(L);
      await page.locator('[data-testid="federation-wechat"]').click();
      await provePhone(page, phone);
      await page.waitForURL(`**/${L}/personal/info`);
      const info = await (await fetch(`${ctx.server.base}/ciam/v1/auth/info`, { headers: { authorization: `Bearer ${await storage(page, 'ciam_token')}` } })).json();
      assert.equal(info.userName, user.userName, 'signed in as the phone\'s account');
    });

    it('inside WeChat: the Official Account\'s authorization', async () => {
      await nextPerson({ unionid: unique('ouoa') });
      const page = await signInPage(L, { userAgent: MICROMESSENGER });
      const visited = [];
      const seen = (r) => r.isNavigationRequest() && visited.push(r.url());
      page.on('request', seen);
      await page.locator('[data-testid="federation-wechat"]').click();
      await page.locator('[data-testid="federation-phone"]').waitFor();
      page.off('request', seen);
      assert.ok(visited.some((u) => u.includes('/wechat/connect/oauth2/authorize') && u.includes('snsapi_userinfo')), `the OA authorization: ${visited.join(' ')}`);
      assert.ok(!visited.some((u) => u.includes('/connect/qrconnect')), 'not the QR login');
      await page.close();
    });

    it('a snapshot-mode user is refused with what to tap', async () => {
      await nextPerson({ unionid: unique('ousnap'), snapshot: true });
      const page = await signInPage(L, { userAgent: MICROMESSENGER });
      await page.locator('[data-testid="federation-wechat"]').click();
      const hint = page.locator('[data-testid="federation-snapshot"]');
      await hint.waitFor();
      assert.equal(await hint.textContent(), say(t['federation.snapshot'], { provider: wechat }));
      assert.equal(await storage(page, 'ciam_token'), null);
      await everyWay(page, `the snapshot hint after WeChat (${L})`);
      await page.close();
    });

    it('a person who declines at WeChat, and WeChat down: said in words naming WeChat, nobody signed in', async () => {
      await nextPerson({ unionid: unique('oudecline'), decline: true });
      let page = await signInPage(L);
      await page.locator('[data-testid="federation-wechat"]').click();
      const error = page.locator('[data-testid="federation-error"]');
      await error.waitFor();
      assert.equal(await error.textContent(), say(t['federation.cancelled'], { provider: wechat }));
      // WeChat's pages answer the browser; its API is down when Ciam exchanges the code.
      await nextPerson({ unionid: unique('oudown') });
      page = await signInPage(L);
      apiDown = true;
      try {
        await page.locator('[data-testid="federation-wechat"]').click();
        const down = page.locator('[data-testid="federation-error"]');
        await down.waitFor();
        assert.equal(await down.textContent(), say(t['federation.down'], { provider: wechat }));
      } finally {
        apiDown = false;
      }
      assert.equal(await storage(page, 'ciam_token'), null);
    });
  });
}
