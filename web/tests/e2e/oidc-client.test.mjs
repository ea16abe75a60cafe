// The OpenID Connect provider against a real client library: `openid-client` (v6) runs the
// authorization code flow with PKCE against `ciam serve`, with client_secret_post and
// client_secret_basic, verifies the ES256 id_token with the published JWKS (and its nonce), and
// reads userinfo. The consent screen itself is the SPA's (another suite); here the user's side is
// driven through the API the screen calls. No browser is needed, only the ciam binary: with
// CI=true a missing binary FAILS the suite, elsewhere it is skipped with the reason.
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { BIN, CI, apiCall, createAccount, startServer, uniqueMail } from './harness.mjs';

const lacking = existsSync(BIN) ? [] : [`the ciam binary at ${BIN} (cargo build -p ciam-local --bin ciam)`];
const skip = lacking.length && !CI ? `oidc e2e needs ${lacking.join('; ')}` : false;

const ctx = { server: null, app: null, user: null };

before(async () => {
  if (skip) return;
  if (lacking.length) throw new Error(`e2e: missing ${lacking.join('; ')}`);
  const server = await startServer();
  ctx.server = server;
  // The operator registers the partner app with the command line (ciam admin apps create).
  const redirectUri = `${server.base}/cb`;
  const created = server.registerApp({
    name: { 'zh-CN': 'OIDC 示例', 'en-US': 'OIDC Example' },
    serviceUrls: [redirectUri],
    scopes: ['nickname', 'email'],
  });
  ctx.app = { id: created.app.appId, secret: created.appSecret, redirectUri };
  ctx.user = await createAccount(server, { account: uniqueMail('oidc-user'), userName: `oidc${Date.now().toString(36)}` });
  const info = await apiCall(server.base, 'GET', '/auth/info', undefined, ctx.user.token);
  assert.equal(info.status, 200, JSON.stringify(info.json));
  ctx.user.id = info.json.userId;
});

after(async () => {
  await ctx.server?.stop();
});

const issuer = () => `${ctx.server.base}/ciam/v1/oidc`;

async function configure(auth) {
  return client.discovery(new URL(issuer()), ctx.app.id, ctx.app.secret, auth, {
    execute: [client.allowInsecureRequests],
  });
}

/** The front channel: the authorization URL, the consent request, Allow. Answers the callback URL. */
async function authorize(config, { state, nonce, codeChallenge }) {
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: ctx.app.redirectUri,
    scope: 'openid nickname email',
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    state,
    nonce,
    ui_locales: 'en-US',
  });
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  const to = new URL(res.headers.get('location'), ctx.server.base);
  assert.equal(to.pathname, '/en-US/passport/authorize');
  const id = to.searchParams.get('oidcRequest');
  assert.ok(id, `no oidcRequest in ${to}`);
  const view = await apiCall(ctx.server.base, 'GET', `/oidc/requests/${id}`, undefined, ctx.user.token);
  assert.equal(view.status, 200, JSON.stringify(view.json));
  assert.equal(view.json.appId, ctx.app.id);
  assert.deepEqual(view.json.scopes, ['email', 'nickname']);
  const allow = await apiCall(ctx.server.base, 'POST', `/oidc/requests/${id}`, {}, ctx.user.token);
  assert.equal(allow.status, 200, JSON.stringify(allow.json));
  return { redirect: new URL(allow.json.redirect), granted: view.json.granted };
}

async function codeFlow(config) {
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(pkceCodeVerifier);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const { redirect, granted } = await authorize(config, { state, nonce, codeChallenge });
  assert.equal(redirect.origin + redirect.pathname, ctx.app.redirectUri);
  assert.equal(redirect.searchParams.get('state'), state);
  const tokens = await client.authorizationCodeGrant(config, redirect, {
    pkceCodeVerifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  return { tokens, redirect, pkceCodeVerifier, state, nonce, granted };
}

test('discovery matches the issuer and advertises the code flow with PKCE S256', { skip }, async () => {
  const config = await configure();
  const meta = config.serverMetadata();
  assert.equal(meta.issuer, issuer());
  assert.deepEqual(meta.response_types_supported, ['code']);
  assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(meta.id_token_signing_alg_values_supported, ['ES256']);
  assert.ok(meta.supportsPKCE());
});

test('openid-client runs the code flow with client_secret_post and client_secret_basic', { skip }, async () => {
  for (const [label, auth] of [
    ['client_secret_post', undefined],
    ['client_secret_basic', client.ClientSecretBasic(ctx.app.secret)],
  ]) {
    const config = await configure(auth);
    const { tokens, redirect, pkceCodeVerifier, state, nonce, granted } = await codeFlow(config);
    // The first Allow is remembered: the second run finds the consent granted.
    assert.equal(granted, label === 'client_secret_basic', `${label}: granted`);
    assert.equal(tokens.token_type.toLowerCase(), 'bearer', label);
    assert.equal(tokens.scope, 'openid email nickname', label);
    // The id_token was verified by the library (ES256, JWKS, iss, aud, exp, nonce); its claims:
    const claims = tokens.claims();
    assert.equal(claims.iss, issuer(), label);
    assert.equal(claims.aud, ctx.app.id, label);
    assert.equal(claims.sub, ctx.user.id, label);
    assert.equal(claims.nonce, nonce, label);
    assert.equal(claims.email, ctx.user.account, label);
    assert.equal(claims.nickname, ctx.user.userName, label);
    assert.equal(claims.phone_number, undefined, label);

    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    assert.equal(info.sub, ctx.user.id, label);
    assert.equal(info.email, ctx.user.account, label);
    assert.equal(info.nickname, ctx.user.userName, label);

    // The code is single use.
    await assert.rejects(
      client.authorizationCodeGrant(config, redirect, { pkceCodeVerifier, expectedState: state, expectedNonce: nonce }),
      (e) => e.error === 'invalid_grant',
      `${label}: a redeemed code is refused`,
    );
  }
});

test('a wrong PKCE verifier or a wrong secret is refused', { skip }, async () => {
  const config = await configure();
  const codeChallenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
  const state = client.randomState();
  const { redirect } = await authorize(config, { state, nonce: client.randomNonce(), codeChallenge });
  await assert.rejects(
    client.authorizationCodeGrant(config, redirect, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: state }),
    (e) => e.error === 'invalid_grant',
  );

  const wrong = await client.discovery(new URL(issuer()), ctx.app.id, 'not-the-secret', undefined, {
    execute: [client.allowInsecureRequests],
  });
  const pkceCodeVerifier = client.randomPKCECodeVerifier();
  const state2 = client.randomState();
  const again = await authorize(wrong, {
    state: state2,
    nonce: client.randomNonce(),
    codeChallenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
  });
  await assert.rejects(
    client.authorizationCodeGrant(wrong, again.redirect, { pkceCodeVerifier, expectedState: state2 }),
    // 401 with `WWW-Authenticate: Basic`, which the library reports as the challenge.
    (e) => e.status === 401 && (e.error === 'invalid_client' || e.cause?.[0]?.scheme === 'basic'),
  );
});

test('an unregistered redirect_uri is answered with 400, never redirected', { skip }, async () => {
  const config = await configure();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: `${ctx.app.redirectUri}/`,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('location'), null);
  assert.equal((await res.json()).field, 'redirect_uri');
});
