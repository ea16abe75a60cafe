// Back-Channel Logout 1.0 tokens, as `ciam serve` POSTs them, validated by a client library
// (issue 23): `openid-client` signs a user in through the code flow against `ciam serve` (the
// id_token's `sid` names the session), the same session takes a ticket of a ticket app, and the
// user signs out. `ciam serve`'s webhook worker then POSTs a logout token to the OIDC client's
// `backchannelLogoutUri` and one to the ticket app's `logoutUrl`: both are a receiver here on
// 127.0.0.1 (http to localhost is allowed by `ciam serve`). `jose` (the JOSE library openid-client
// is built on) validates what arrived as §2.6 of the specification asks: signature by a key of the
// provider's JWKS, `typ` logout+jwt, `iss`, `aud`, `iat` (and `exp`, two minutes later), `jti`, the
// `events` member, `sid` and `sub` those of the id_token, no `nonce`; the body is the form
// `logout_token=` (§2.5). `ciam admin logout-notices` prints the same for a live session. No
// browser: only the ciam binary (with CI=true a missing one FAILS).
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { BIN, CI, apiCall, consoleUser, consoleWebhooks, createAccount, startServer, uniqueMail } from './harness.mjs';

const lacking = existsSync(BIN) ? [] : [`the ciam binary at ${BIN} (cargo build -p ciam-local --bin ciam)`];
const skip = lacking.length && !CI ? `back-channel e2e needs ${lacking.join('; ')}` : false;
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

const ctx = { server: null, oidc: null, ticket: null, user: null, viewer: null, receiver: null, got: [], rx: '' };

/** A receiver of logout notices: records each POST (path, content type, body), answers 200. */
function startReceiver() {
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      ctx.got.push({ path: req.url, type: req.headers['content-type'], body });
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

async function waitFor(n, ms = 15_000) {
  const end = Date.now() + ms;
  while (ctx.got.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return ctx.got;
}
const issuer = () => `${ctx.server.base}/ciam/v1/oidc`;

before(async () => {
  if (skip) return;
  if (lacking.length) throw new Error(`e2e: missing ${lacking.join('; ')}`);
  ctx.receiver = await startReceiver();
  ctx.rx = `http://127.0.0.1:${ctx.receiver.address().port}`;
  ctx.server = await startServer();
  // The apps, registered by the operator's command line; a console viewer reads the delivery log.
  ctx.viewer = await consoleUser(ctx.server, 'viewer', 'bc-viewer');
  const register = (name, fields) => {
    const made = ctx.server.registerApp({ name: { 'zh-CN': `${name}中`, 'en-US': name }, scopes: ['nickname'], ...fields });
    return { id: made.app.appId, secret: made.appSecret };
  };
  ctx.oidc = register('BC Client', {
    serviceUrls: ['https://rp.example.com/cb'],
    backchannelLogoutUri: `${ctx.rx}/backchannel`,
  });
  ctx.ticket = register('BC Shop', { serviceUrls: ['https://shop.example.com/cas'], logoutUrl: `${ctx.rx}/cas/logout` });
  ctx.user = await createAccount(ctx.server, { account: uniqueMail('bc-user') });
});

after(async () => {
  await ctx.server?.stop();
  ctx.receiver?.close();
});

test('logout tokens POSTed by ciam serve at sign-out pass every check of Back-Channel Logout §2.6 in jose', { skip }, async () => {
  const config = await client.discovery(new URL(issuer()), ctx.oidc.id, ctx.oidc.secret, undefined, { execute: [client.allowInsecureRequests] });
  const meta = config.serverMetadata();
  assert.equal(meta.backchannel_logout_supported, true);
  assert.equal(meta.backchannel_logout_session_supported, true);
  // The code flow; the browser's part through the API the consent screen calls.
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'https://rp.example.com/cb',
    scope: 'openid nickname',
    code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const res = await fetch(url, { redirect: 'manual' });
  const id = new URL(res.headers.get('location'), ctx.server.base).searchParams.get('oidcRequest');
  const allow = await apiCall(ctx.server.base, 'POST', `/oidc/requests/${id}`, {}, ctx.user.token);
  assert.equal(allow.status, 200, JSON.stringify(allow.json));
  const tokens = await client.authorizationCodeGrant(config, new URL(allow.json.redirect), { pkceCodeVerifier, expectedState: state });
  const { sub, sid } = tokens.claims();
  assert.match(sid, /^[0-9a-f]{32}$/);
  // The same session takes a ticket of the ticket app.
  const ticket = await apiCall(ctx.server.base, 'POST', '/auth/login/token', { appId: ctx.ticket.id, serviceUrl: 'https://shop.example.com/cas' }, ctx.user.token);
  assert.equal(ticket.status, 200, JSON.stringify(ticket.json));

  // Before the sign-out, the operator's tool shows what the apps would get (it sends nothing).
  const r = spawnSync(BIN, ['admin', 'logout-notices', sub, sid, '--public-url', ctx.server.base, '--data', ctx.server.data], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const printed = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(printed.map((n) => n.url).sort(), [`${ctx.rx}/backchannel`, `${ctx.rx}/cas/logout`]);
  assert.equal(ctx.got.length, 0, 'nothing is sent while the session lives');

  // The user signs out of Ciam: ciam serve POSTs one logout token to each app of the session.
  assert.equal((await apiCall(ctx.server.base, 'POST', '/auth/logout', {}, ctx.user.token)).status, 200);
  const got = await waitFor(2);
  assert.equal(got.length, 2, JSON.stringify(got));
  const jwks = createRemoteJWKSet(new URL(meta.jwks_uri));
  const check = async (path, audience) => {
    const n = got.find((g) => g.path === path);
    assert.ok(n, `a POST to ${path}`);
    assert.equal(n.type, 'application/x-www-form-urlencoded');
    const form = new URLSearchParams(n.body);
    assert.deepEqual([...form.keys()], ['logout_token']);
    const logoutToken = form.get('logout_token');
    // §2.6: validate as an ID token (signature with the JWKS, iss, aud, iat), typed logout+jwt.
    const { payload, protectedHeader } = await jwtVerify(logoutToken, jwks, {
      issuer: issuer(),
      audience,
      typ: 'logout+jwt',
      algorithms: ['ES256'],
      maxTokenAge: '2 minutes',
      requiredClaims: ['iat', 'exp', 'jti', 'events', 'sid', 'sub'],
    });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(decodeProtectedHeader(logoutToken).typ, 'logout+jwt');
    assert.equal(payload.exp - payload.iat, 120, 'valid for two minutes');
    assert.ok(typeof payload.jti === 'string' && payload.jti.length >= 16, 'a jti');
    assert.deepEqual(payload.events, { [EVENT]: {} }, 'the back-channel logout event, an empty object');
    assert.equal(payload.sid, sid, "the id_token's sid");
    assert.equal(payload.sub, sub, "the id_token's sub");
    assert.equal('nonce' in payload, false, 'no nonce');
    // Another audience or issuer is refused by the library.
    await assert.rejects(jwtVerify(logoutToken, jwks, { issuer: issuer(), audience: 'another-client', typ: 'logout+jwt' }));
    await assert.rejects(jwtVerify(logoutToken, jwks, { issuer: 'https://other.example/oidc', audience }));
  };
  await check('/backchannel', ctx.oidc.id);
  // The ticket app gets the same kind of token, its own aud: verified with the JWKS, no secret.
  await check('/cas/logout', ctx.ticket.id);

  // Each is in its app's delivery log, delivered once; the session's apps are forgotten.
  const log = await consoleWebhooks(ctx.server, ctx.viewer, ctx.oidc.id).deliveries('backchannel');
  assert.equal(log.status, 200, JSON.stringify(log.json));
  assert.deepEqual(log.json.deliveries.map((d) => [d.status, d.outcome]), [[200, 'delivered']]);
  const again = spawnSync(BIN, ['admin', 'logout-notices', sub, sid, '--public-url', ctx.server.base, '--data', ctx.server.data], { encoding: 'utf8' });
  assert.equal(again.stdout.trim(), '');
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(ctx.got.length, 2, 'sent once');
});
