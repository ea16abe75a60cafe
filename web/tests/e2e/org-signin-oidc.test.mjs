// The company's own sign-in against `oidc-provider` (issue 35 items 4 and 5; docs/organizations-
// connections.md §7), over HTTP against a real `ciam serve`, on SQLite and on DynamoDB Local. Two
// organizations, each with its own identity provider (idp.mjs: oidc-provider with its development
// login and consent pages, driven over HTTP as a person would fill them). Their domains are
// verified with `ciam admin org-sign-in --verify` (the operator's word: a DNS record or a mail
// code cannot be proven here; the placeholder connection it makes is deleted through the API);
// each connection is created through "My company"'s API, refused `on` before its test, tested
// with the test sign-in at its provider, turned on, and its domain routed to it. Then:
// `POST /auth/org/discover` sends each mail to its own organization's connection; a new colleague
// signs in start -> provider -> callback -> orgCode -> `POST /auth/login/federation` and just in
// time `join` makes them a member; a second sign-in finds the same account; `jit: off` refuses a
// non-member naming the organization; a mail at a domain the organization has not verified is
// refused; `required` refuses the password sign-in (ORG_SIGN_IN_REQUIRED) and the company's way
// in finds that account. Last, with that company session, `openid-client` runs the authorization
// code flow with the `organization` scope and parameter and finds `org_id` and `org_roles`
// (["member"]) in the verified id_token and userinfo, and a CAS-style ticket app that requires
// an organization gets `orgId`/`orgRoles` from the ticket's verification. The consent screens'
// calls are made through the API, as oidc-org.test.mjs's first test does. No browser.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { apiCall, createAccount, suite, uniqueMail } from './harness.mjs';
import { signInAtIdp, startIdp } from './idp.mjs';

const RP = 'https://org-signin-rp.example.com';
const PASSWORD = 'Ciam-Org-Idp-2026!';
const b64url = (buf) => buf.toString('base64url');

/** The flow on one engine: `ctx` is its suite's (its server's `admin` reaches its store). */
function companySignIn(label, { skip, ctx }) {
  describe(`the company's own sign-in through oidc-provider (${label})`, { skip }, () => {
    const tag = `${label.toLowerCase()}-${Date.now().toString(36)}`;
    const acmeDomain = `acme-${tag}.example`;
    const betaDomain = `beta-${tag}.example`;
    const elsewhere = `elsewhere-${tag}.example`;
    const s = { boss: null, colleague: null, acme: null, beta: null, li: null, idps: [] };
    const api = (method, path, body, token) => apiCall(ctx.server.base, method, path, body, token);

    /**
     * An organization owned by the boss, its domain verified (the placeholder connection of
     * `org-sign-in --verify` deleted), its provider with `people`, and a connection to it through
     * the API, tested at the provider and on, the domain routed to it.
     */
    async function company(name, domain, jit, people) {
      const { base } = ctx.server;
      const orgId = ctx.server.admin('org-create', s.boss.account, '--name-en', name, '--name-zh', `${name}公司`, '--reason', 'e2e: company sign-in');
      const placeholder = ctx.server.admin('org-sign-in', domain, '--org', orgId, '--name-en', 'Placeholder', '--verify', '--reason', 'e2e: verify the domain');
      const gone = await api('DELETE', `/org/${orgId}/connections/${placeholder}`, undefined, s.boss.token);
      assert.equal(gone.status, 200, JSON.stringify(gone.json));
      assert.deepEqual((await api('POST', '/auth/org/discover', { mail: `someone@${domain}` })).json, {}, 'not routed any more');

      const clientId = `ciam-${name.toLowerCase()}`;
      const secret = b64url(randomBytes(24));
      const idp = await startIdp({
        clients: [{ client_id: clientId, client_secret: secret, redirect_uris: [`${base}/ciam/v1/auth/org/callback`] }],
        accounts: people,
      });
      s.idps.push(idp);
      const made = await api(
        'POST',
        `/org/${orgId}/connections`,
        { protocol: 'oidc', nameEn: `${name} sign-in`, nameZh: `${name}登录`, settings: { issuer: idp.issuer, clientId }, secret, jit },
        s.boss.token,
      );
      assert.equal(made.status, 201, JSON.stringify(made.json));
      const conn = made.json;
      assert.equal(conn.status, 'draft');
      assert.equal(conn.redirectUri, `${base}/ciam/v1/auth/org/callback`);
      assert.equal(conn.secret, undefined, 'the secret is never answered');
      const path = `/org/${orgId}/connections/${conn.connId}`;
      const early = await api('PATCH', path, { on: true }, s.boss.token);
      assert.equal(early.status, 400, 'not on before its test');
      assert.equal(early.json.reason, 'INVALID_PARAMETER');

      // The test sign-in: the provider's answer shown, nobody signed in, the connection tested.
      const test = await api('POST', `${path}/test`, {}, s.boss.token);
      assert.equal(test.status, 200, JSON.stringify(test.json));
      assert.ok(test.json.url.startsWith(`${idp.issuer}/`), test.json.url);
      const back = await signInAtIdp(test.json.url, 'tester');
      assert.ok(back.startsWith(`${base}/ciam/v1/auth/org/callback?`), back);
      const page = await fetch(back, { redirect: 'manual' });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type'), /^text\/html/);
      const html = await page.text();
      for (const shown of ['tester', `tester@${domain}`, 'tested']) assert.ok(html.includes(shown), `${shown} in ${html}`);
      assert.equal((await api('GET', path, undefined, s.boss.token)).json.status, 'tested');

      const on = await api('PATCH', path, { on: true }, s.boss.token);
      assert.equal(on.status, 200, JSON.stringify(on.json));
      assert.equal(on.json.status, 'on');
      const routed = await api('PUT', `/org/${orgId}/domains/${domain}/sign-in`, { connId: conn.connId, required: false }, s.boss.token);
      assert.equal(routed.status, 200, JSON.stringify(routed.json));
      return { orgId, connId: conn.connId, idp, name };
    }

    /**
     * A sign-in through `c` from a browser that holds its bind: start -> the provider (as `login`)
     * -> the callback; answers where Ciam sends the browser, and the bind.
     */
    async function signIn(c, login, jar = new Map()) {
      const { base } = ctx.server;
      const bind = b64url(randomBytes(24));
      const bindHash = b64url(createHash('sha256').update(bind).digest());
      const q = new URLSearchParams({ connection: c.connId, lang: 'en-US', query: 'appId=org-e2e', bindHash });
      const start = await fetch(`${base}/ciam/v1/auth/org/start?${q}`, { redirect: 'manual' });
      assert.equal(start.status, 302, await start.text());
      const to = start.headers.get('location');
      assert.ok(to.startsWith(`${c.idp.issuer}/`), `to the organization's own provider: ${to}`);
      const back = await signInAtIdp(to, login, jar);
      assert.ok(back.startsWith(`${base}/ciam/v1/auth/org/callback?`), back);
      const cb = await fetch(back, { redirect: 'manual' });
      assert.equal(cb.status, 302, await cb.text());
      return { to: new URL(cb.headers.get('location'), base), bind };
    }

    /** A sign-in that ends with a session: the orgCode redeemed (once). */
    async function session(c, login, jar) {
      const { to, bind } = await signIn(c, login, jar);
      assert.equal(to.pathname, '/en-US/passport/signin');
      assert.equal(to.searchParams.get('appId'), 'org-e2e', 'the query came along');
      const code = to.searchParams.get('orgCode');
      assert.ok(code, `an orgCode: ${to}`);
      const redeemed = await api('POST', '/auth/login/federation', { provider: 'org', code, bind });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.json));
      const again = await api('POST', '/auth/login/federation', { provider: 'org', code, bind });
      assert.equal(again.status, 401, 'the code works once');
      const info = await api('GET', '/auth/info', undefined, redeemed.json.token);
      assert.equal(info.status, 200, JSON.stringify(info.json));
      return { token: redeemed.json.token, userId: info.json.userId };
    }

    function refused(to, reason) {
      assert.equal(to.searchParams.get('orgError'), reason, `refused with ${reason}: ${to}`);
      assert.equal(to.searchParams.get('orgCode'), null);
    }

    async function membership(token, orgId) {
      const mine = await api('GET', '/org/mine', undefined, token);
      assert.equal(mine.status, 200, JSON.stringify(mine.json));
      return mine.json.organizations.find((m) => m.organization.orgId === orgId)?.role ?? null;
    }

    before(async () => {
      if (skip) return;
      s.boss = await createAccount(ctx.server, { account: uniqueMail('org-idp-boss'), password: PASSWORD });
      // A colleague with a password, signed up before the company routed its domain.
      s.colleague = await createAccount(ctx.server, { account: `han.mei@${acmeDomain}`, password: PASSWORD });
      const mail = (m) => ({ email: m, email_verified: true, name: m.split('@')[0] });
      s.acme = await company('Acme', acmeDomain, 'join', {
        tester: mail(`tester@${acmeDomain}`),
        'li.lei': mail(`li.lei@${acmeDomain}`),
        'han.mei': mail(`han.mei@${acmeDomain}`),
        wanderer: mail(`li@${elsewhere}`),
        crosser: mail(`li@${betaDomain}`),
        unverified: { email: `chen@${acmeDomain}`, email_verified: false },
      });
      s.beta = await company('Beta', betaDomain, 'off', {
        tester: mail(`tester@${betaDomain}`),
        zhao: mail(`zhao@${betaDomain}`),
      });
    });
    after(async () => {
      for (const idp of s.idps) await idp.stop();
    });

    it('discover sends each mail to its own organization\'s connection', async () => {
      for (const [mail, c] of [
        [`li.lei@${acmeDomain}`, s.acme],
        [`zhao@${betaDomain}`, s.beta],
      ]) {
        const d = await api('POST', '/auth/org/discover', { mail });
        assert.equal(d.status, 200, JSON.stringify(d.json));
        assert.equal(d.json.connection.id, c.connId, mail);
        assert.equal(d.json.connection.protocol, 'oidc');
        assert.deepEqual(d.json.connection.name, { 'zh-CN': `${c.name}登录`, 'en-US': `${c.name} sign-in` });
        assert.equal(d.json.required, false);
      }
      assert.deepEqual((await api('POST', '/auth/org/discover', { mail: `li@${elsewhere}` })).json, {});
    });

    it('a new colleague signs in through the provider and joins just in time; again, the same account', async () => {
      const jar = new Map();
      s.li = await session(s.acme, 'li.lei', jar);
      assert.equal(await membership(s.li.token, s.acme.orgId), 'member');
      assert.equal(await membership(s.li.token, s.beta.orgId), null);
      // The provider remembers the person (its cookies): the second sign-in asks nothing there.
      const again = await session(s.acme, 'li.lei', jar);
      assert.equal(again.userId, s.li.userId);
    });

    it('jit off refuses a non-member, naming the organization', async () => {
      const { to } = await signIn(s.beta, 'zhao');
      refused(to, 'FEDERATION_NOT_PERMITTED');
      assert.equal(to.searchParams.get('orgName'), 'Beta');
    });

    it('a mail at a domain the organization has not verified, or not verified by the provider, is refused', async () => {
      for (const login of ['wanderer', 'crosser', 'unverified']) {
        const { to } = await signIn(s.acme, login);
        refused(to, 'FEDERATION_NOT_PERMITTED');
      }
    });

    it('required refuses the password sign-in; the company\'s way in finds that account', async () => {
      const { colleague, acme } = s;
      const before = await api('POST', '/auth/login/password', { account: colleague.account, password: PASSWORD });
      assert.equal(before.status, 200, 'not required yet: the password works');
      const colleagueId = (await api('GET', '/auth/info', undefined, before.json.token)).json.userId;
      const put = await api('PUT', `/org/${acme.orgId}/domains/${acmeDomain}/sign-in`, { connId: acme.connId, required: true }, s.boss.token);
      assert.equal(put.status, 200, JSON.stringify(put.json));
      const d = await api('POST', '/auth/org/discover', { mail: colleague.account });
      assert.equal(d.json.required, true);
      const pw = await api('POST', '/auth/login/password', { account: colleague.account, password: PASSWORD });
      assert.equal(pw.status, 403, JSON.stringify(pw.json));
      assert.equal(pw.json.reason, 'ORG_SIGN_IN_REQUIRED');
      assert.equal(pw.json.connection, acme.connId);
      const through = await session(acme, 'han.mei');
      assert.equal(through.userId, colleagueId, 'the account with that verified mail');
      assert.equal(await membership(through.token, acme.orgId), 'member');
    });

    /**
     * `openid-client`'s code flow (PKCE, nonce, scope `organization`) for Li, with `organization`
     * when given; Allow through the API. Answers the screen's organization choices, the verified
     * id_token's claims, and the client's config and tokens.
     */
    async function codeFlow(name, path, organization) {
      const redirectUri = `${RP}/${path}-${tag}`;
      const made = ctx.server.registerApp({ name, serviceUrls: [redirectUri], scopes: ['nickname'] });
      const config = await client.discovery(new URL(`${ctx.server.base}/ciam/v1/oidc`), made.app.appId, made.appSecret, undefined, { execute: [client.allowInsecureRequests] });
      const pkceCodeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid nickname organization',
        code_challenge: await client.calculatePKCECodeChallenge(pkceCodeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        ...(organization ? { organization } : {}),
      });
      const res = await fetch(url, { redirect: 'manual' });
      assert.equal(res.status, 302, await res.text());
      const id = new URL(res.headers.get('location'), ctx.server.base).searchParams.get('oidcRequest');
      assert.ok(id, res.headers.get('location'));
      const view = await api('GET', `/oidc/requests/${id}`, undefined, s.li.token);
      assert.equal(view.status, 200, JSON.stringify(view.json));
      const allow = await api('POST', `/oidc/requests/${id}`, {}, s.li.token);
      assert.equal(allow.status, 200, JSON.stringify(allow.json));
      const tokens = await client.authorizationCodeGrant(config, new URL(allow.json.redirect), { pkceCodeVerifier, expectedState: state, expectedNonce: nonce });
      return { choices: view.json.organization.choices.map((c) => c.orgId), claims: tokens.claims(), config, tokens };
    }

    it('openid-client finds org_id and org_roles after the company sign-in', async () => {
      // The parameter names the organization (the last test goes without it).
      const { choices, claims, config, tokens } = await codeFlow({ 'zh-CN': '公司门户', 'en-US': 'Company Portal' }, 'cb', s.acme.orgId);
      assert.deepEqual(choices, [s.acme.orgId]);
      assert.equal(claims.sub, s.li.userId);
      assert.equal(claims.org_id, s.acme.orgId);
      assert.deepEqual(claims.org_roles, ['member']);
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      assert.equal(info.org_id, s.acme.orgId);
      assert.deepEqual(info.org_roles, ['member']);
    });

    it('a ticket app that requires an organization receives it after the company sign-in', async () => {
      const tickets = `${RP}/tickets-${tag}`;
      const made = ctx.server.registerApp({
        name: { 'zh-CN': '票据应用', 'en-US': 'Ticket App' },
        serviceUrls: [tickets],
        scopes: ['nickname'],
        organization: 'required',
      });
      const { appId } = made.app;
      assert.equal(made.app.organization, 'required');
      const consent = await api('GET', `/auth/consent?appId=${appId}&serviceUrl=${encodeURIComponent(tickets)}`, undefined, s.li.token);
      assert.equal(consent.status, 200, JSON.stringify(consent.json));
      assert.deepEqual(
        consent.json.organization.choices.map((c) => c.orgId),
        [s.acme.orgId],
      );
      const issued = await api('POST', '/auth/login/token', { appId, serviceUrl: tickets }, s.li.token);
      assert.equal(issued.status, 200, JSON.stringify(issued.json));
      const q = new URLSearchParams({ cTicket: issued.json.cTicket, serviceUrl: tickets });
      const v = await fetch(`${ctx.server.base}/ciam/v1/auth/login/token/verify?${q}`, {
        headers: { authorization: `Basic ${Buffer.from(`${appId}:${made.appSecret}`).toString('base64')}` },
      });
      const body = await v.json();
      assert.equal(v.status, 200, JSON.stringify(body));
      assert.equal(body.userId, s.li.userId);
      assert.equal(body.orgId, s.acme.orgId);
      assert.deepEqual(body.orgRoles, ['member']);
    });

    it('without the organization parameter, openid-client gets the company sign-in\'s organization, not a picker', async () => {
      // Li also owns another organization: without the session's organization (design §3) the
      // authorization would offer both; the company sign-in's session names Acme alone.
      const side = ctx.server.admin('org-create', s.li.userId, '--name-en', 'Li Side', '--name-zh', '李的副业', '--reason', 'e2e: a second organization');
      assert.equal(await membership(s.li.token, side), 'owner');
      const { choices, claims } = await codeFlow({ 'zh-CN': '默认组织', 'en-US': 'Default Org' }, 'cb-default');
      assert.deepEqual(choices, [s.acme.orgId], 'no picker');
      assert.equal(claims.org_id, s.acme.orgId);
      assert.deepEqual(claims.org_roles, ['member']);
    });
  });
}

const onSqlite = suite();
companySignIn('SQLite', onSqlite);
const onDynamo = suite({ dynamodb: true });
companySignIn('DynamoDB', onDynamo);
