// A company's OpenID Connect identity provider for the tests: `oidc-provider` (its development
// login and consent pages: any password works, the login names the account) with the clients and
// accounts a test gives it, and a person signing in at it over HTTP (signInAtIdp) or in a browser
// page (signInAtIdpPage). Used by staff.test.mjs (Ciam's staff sign-in), org-signin-oidc.test.mjs,
// org-connections.test.mjs and org-embedded-idp.test.mjs (organizations' own connections) and,
// through the command line, by the Python tests:
//
//   node web/tests/e2e/idp.mjs --config '<json>'   (or --config <file.json>)
//
// prints `{"issuer": "..."}` on one line once it listens and serves until its stdin closes (or
// SIGTERM). The JSON is startIdp's options: `{port?, clients, accounts}`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import Provider from 'oidc-provider';

/** A loopback port the OS says is free now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * Starts a provider on 127.0.0.1.
 * - `port`: where (a free one when absent; known before when the issuer must be named first).
 * - `clients`: oidc-provider client metadata; `grant_types`, `response_types` and
 *   `token_endpoint_auth_method` default to the code flow with client_secret_basic.
 * - `accounts`: `{login: claims}` (the `sub` is the login), or a function `(login) => claims`
 *   (null: no such account); an unknown login gets none and the login page asks again.
 * - `use`: Koa middleware run around the provider's own (staff.test.mjs holds callbacks with it).
 * Answers `{issuer, port, provider, stop()}`.
 */
export async function startIdp({ port, clients, accounts = {}, use } = {}) {
  const at = port || (await freePort());
  const issuer = `http://127.0.0.1:${at}`;
  const claimsOf = typeof accounts === 'function' ? accounts : (login) => accounts[login] ?? null;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...c,
    })),
    async findAccount(_ctx, id) {
      const claims = claimsOf(id);
      if (!claims) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, ...claims };
        },
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['e2e-cookie-key-0123456789abcdef'] },
  });
  provider.on('server_error', (_ctx, e) => console.error('oidc-provider:', e));
  if (use) provider.use(use);
  let server;
  await new Promise((resolve) => {
    server = provider.listen(at, '127.0.0.1', resolve);
  });
  return {
    issuer,
    port: at,
    provider,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A person at the provider, over HTTP (no browser): opens `url` (the authorization request),
 * types `login` and any password on the development login page, continues on the consent page,
 * and answers the first address outside the provider it is sent to (the relying party's
 * callback). Its cookies are the provider's only; `jar` keeps them between sign-ins (a second
 * sign-in with the same jar finds the provider's session).
 */
export async function signInAtIdp(url, login, jar = new Map()) {
  const issuer = new URL(url).origin;
  let next = { url: new URL(url), method: 'GET', body: undefined };
  for (let step = 0; step < 12; step++) {
    const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (next.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(next.url, { method: next.method, headers, body: next.body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || pair.slice(eq + 1) === '';
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      const to = new URL(location, next.url);
      if (to.origin !== issuer) return to.href;
      next = { url: to, method: 'GET', body: undefined };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${next.url}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no form of the provider at ${next.url}: ${html.slice(0, 500)}`);
    const form = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      form.set('login', login);
      form.set('password', 'anything');
    }
    next = { url: new URL(action.replaceAll('&amp;', '&'), next.url), method: 'POST', body: form.toString() };
  }
  throw new Error(`the provider kept the person past 12 steps (at ${next.url})`);
}

/**
 * A person at the provider in a browser page (Playwright's), once the relying party sent the page
 * there: the development login as `login` (any password), then the consent, until the page leaves
 * the provider (at once when the provider remembers a session) or closes (a popup that hands the
 * way back and closes itself). `back`: the relying party's origin, where the page may be already.
 * Stops where the provider shows no form (a test that holds the callback keeps the page there).
 */
export async function signInAtIdpPage(page, issuer, login, back) {
  await page.waitForURL((u) => u.href.startsWith(issuer) || (!!back && u.href.startsWith(back)), { timeout: 20_000 });
  const unlessClosed = (e) => {
    if (!page.isClosed()) throw e;
  };
  for (let step = 0; step < 3; step++) {
    if (page.isClosed()) return;
    await page.waitForLoadState().catch(unlessClosed);
    if (page.isClosed() || !page.url().startsWith(issuer)) return;
    const submit = page.locator('button[type="submit"]');
    if ((await submit.count()) === 0) return;
    const field = page.locator('input[name="login"]');
    if (await field.count()) {
      await field.fill(login);
      await page.locator('input[name="password"]').fill('anything');
    }
    await Promise.all([page.waitForNavigation({ timeout: 20_000 }).catch(unlessClosed), submit.first().click()]);
  }
}

// The command line: `node idp.mjs --config <json or file>`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--config');
  const raw = i > 0 ? process.argv[i + 1] : undefined;
  if (!raw) {
    console.error('usage: node idp.mjs --config <json or file>');
    process.exit(2);
  }
  const config = JSON.parse(raw.trimStart().startsWith('{') ? raw : readFileSync(raw, 'utf8'));
  const idp = await startIdp(config);
  process.stdout.write(`${JSON.stringify({ issuer: idp.issuer })}\n`);
  const stop = async () => {
    await idp.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}
