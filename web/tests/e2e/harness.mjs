// The end-to-end harness: a real `ciam serve` on a fresh data folder and a free port, a real
// headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core with a fresh profile,
// and axe-core for accessibility. With CI=true a missing browser, binary or build FAILS the suite;
// elsewhere the suite is skipped with the reason.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import { chromium } from 'playwright-core';

export const ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
export const CHROMIUM = process.env.CIAM_CHROMIUM ?? '/usr/bin/chromium';
export const BIN = process.env.CIAM_BIN ?? join(ROOT, 'target/debug/ciam');
export const DIST = process.env.CIAM_WEB_DIST ?? join(ROOT, 'web/dist');
export const LOCALES = ['zh-CN', 'en-US'];
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What the suite needs and lacks. */
export function missing() {
  const m = [];
  if (!existsSync(CHROMIUM)) m.push(`chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  if (!existsSync(BIN)) m.push(`the ciam binary at ${BIN} (cargo build -p ciam-local --locked)`);
  if (!existsSync(join(DIST, 'index.html'))) m.push(`the web build at ${DIST} (npm run build --workspace web)`);
  return m;
}

/**
 * The skip option for the suite's tests: false when everything is there, else the reason. Under CI
 * a missing piece is never a skip: the tests run and fail (their `before` hook throws).
 */
export function requirements() {
  const m = missing();
  if (m.length && CI) return false;
  return m.length ? `e2e needs ${m.join('; ')}` : false;
}

/** `ciam serve` on 127.0.0.1 with a port chosen by the OS and a fresh data folder. */
export async function startServer({ args = [], env = {} } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'ciam-e2e-data-'));
  const child = spawn(BIN, ['serve', '--addr', '127.0.0.1:0', '--data', data, '--web-dist', DIST, ...args], {
    env: { ...process.env, CIAM_LOG: process.env.CIAM_LOG ?? 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk) => {
    log = (log + chunk.toString()).slice(-20_000); // always drain the pipes (the outbox prints codes)
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ciam serve did not start in 30 s:\n${log}`)), 30_000);
    const onData = () => {
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)\//.exec(log);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ciam serve exited (${code}):\n${log}`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`ciam serve could not start: ${e.message}`));
    });
  });
  let base;
  try {
    base = await started;
  } catch (e) {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
    throw e;
  }
  const server = {
    base,
    data,
    log: () => log,
    async outbox() {
      const res = await fetch(`${base}/ciam/dev/outbox`);
      assert.equal(res.status, 200, 'the dev outbox answers');
      return res.json();
    },
    /** The newest code sent to `to` (for `purpose` when given), waiting for it up to 15 s. */
    async codeFor(to, purpose) {
      const want = to.trim().toLowerCase();
      for (let i = 0; i < 150; i++) {
        const hits = (await server.outbox()).filter(
          (e) => String(e.to).toLowerCase().includes(want) && (!purpose || e.purpose === purpose),
        );
        if (hits.length) return hits[hits.length - 1].code;
        await sleep(100);
      }
      throw new Error(`no code for ${to} in the outbox`);
    },
    /** `ciam admin grant <mail>` on this server's data folder (the account must exist). */
    grantAdmin(mail) {
      const r = spawnSync(BIN, ['admin', 'grant', mail, '--data', data], { encoding: 'utf8' });
      assert.equal(r.status, 0, `ciam admin grant ${mail}: ${r.stderr}`);
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5000)]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
  return server;
}

/** A headless Chromium with a fresh profile (user-data-dir). */
export async function launchBrowser({ locale = 'en-US' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ciam-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    locale,
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(30_000);
  const errors = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  return {
    context,
    /** Uncaught page errors seen so far. */
    errors,
    async page() {
      return context.pages()[0] ?? context.newPage();
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sets the browser's local storage of the app's origin without booting the app. */
export async function setStorage(page, base, entries) {
  await page.goto(`${base}/ciam/dev/outbox`);
  await page.evaluate((e) => {
    localStorage.clear();
    for (const [k, v] of Object.entries(e)) if (v !== null) localStorage.setItem(k, v);
  }, entries);
}

export async function storage(page, key) {
  return page.evaluate((k) => localStorage.getItem(k), key);
}

/** The path and query of the page. */
export const where = (page) => {
  const u = new URL(page.url());
  return `${u.pathname}${u.search}`;
};

/** Waits until the screen is drawn: a lazy screen's loading text is gone and main has content. */
export async function settled(page) {
  await page.waitForFunction(
    () => {
      const main = document.querySelector('#main');
      return !!main && main.children.length > 0 && !main.querySelector('.loading');
    },
    null,
    { timeout: 20_000 },
  );
}

/** Opens `path` and waits until the url is `expected` and stays there. */
export async function expectLanding(page, base, path, expected, { stableMs = 300 } = {}) {
  await page.goto(`${base}${path}`);
  const deadline = Date.now() + 15_000;
  while (where(page) !== expected && Date.now() < deadline) await sleep(50);
  assert.equal(where(page), expected, `${path} should land on ${expected}`);
  await settled(page);
  await sleep(stableMs);
  assert.equal(where(page), expected, `${path} should stay on ${expected}`);
}

/** The document title becomes `expected` (titles are set by an effect after the screen renders). */
export async function expectTitle(page, expected, label = where(page)) {
  const deadline = Date.now() + 5000;
  while ((await page.title()) !== expected && Date.now() < deadline) await sleep(50);
  assert.equal(await page.title(), expected, `${label}: document title`);
}

/** axe-core on the page: no violations at all. */
export async function expectAccessible(page, label) {
  const result = await new AxeBuilder({ page }).analyze();
  const summary = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n').slice(1).join(' ') ?? ''}`).join('\n    ')}`,
  );
  assert.deepEqual(summary, [], `axe violations on ${label} (${where(page)})`);
  assert.ok(result.passes.length > 0, 'axe ran');
}

/** Solves a captcha challenge like scripts/solve-captcha.mjs (for API set-ups). */
export async function solveCaptcha(base) {
  const c = await (await fetch(`${base}/ciam/v1/auth/captcha`)).json();
  for (let n = 0; n <= c.maxnumber; n++) {
    if (createHash('sha256').update(c.salt + n).digest('hex') === c.challenge) {
      const { algorithm, challenge, salt, signature } = c;
      return Buffer.from(JSON.stringify({ algorithm, challenge, number: n, salt, signature })).toString('base64');
    }
  }
  throw new Error('captcha: no solution');
}

async function call(base, method, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}/ciam/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => null);
  return { status: res.status, json };
}
export const apiCall = call;

let seq = 0;
/** A unique mail address for this run. */
export function uniqueMail(tag) {
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${seq++}@example.com`;
}

/** Creates an account through the API and signs it in; returns the account and its token. */
export async function createAccount(server, { account = uniqueMail('api'), password = 'Ciam-E2e-2026!', userName, company = 'Acme Ltd' } = {}) {
  const { base } = server;
  const id = await call(base, 'POST', '/auth/identity', { account, purpose: 'register', captcha: await solveCaptcha(base) });
  assert.equal(id.status, 200, `identity: ${JSON.stringify(id.json)}`);
  const code = await server.codeFor(account, 'register');
  const name = userName ?? `u${Date.now().toString(36)}${seq++}`;
  const reg = await call(base, 'POST', '/auth/register', {
    userName: name,
    company,
    account,
    code,
    password,
    confirmPassword: password,
    country: 'CN',
    acceptTerms: true,
  });
  assert.ok(reg.status === 200 || reg.status === 201, `register ${reg.status}: ${JSON.stringify(reg.json)}`);
  const login = await call(base, 'POST', '/auth/login/password', { account, password });
  assert.equal(login.status, 200, `login: ${JSON.stringify(login.json)}`);
  return { account, password, userName: name, token: login.json.token };
}

/** One server and one browser for a test file, closed after it. */
export function suite({ locale = 'en-US', server = {} } = {}) {
  const ctx = { server: null, browser: null };
  const skip = requirements();
  before(async () => {
    if (skip) return;
    const m = missing();
    if (m.length) throw new Error(`e2e: missing ${m.join('; ')}`);
    ctx.server = await startServer(server);
    ctx.browser = await launchBrowser({ locale });
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
  });
  return { skip, ctx };
}
