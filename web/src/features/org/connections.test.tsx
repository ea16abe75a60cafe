// The sign-in connections' card of "My company" in jsdom: the list as the server gives it (status,
// protocol, name, the redirect URI), a new OpenID Connect connection (the form's own checks, a
// refusal at the field the server names, the body sent), new WeCom and Feishu ones (their own
// fields and secret's words, the settings sent, agentId refused at its field, the corp or tenant
// shown in the list), a change that keeps the secret, a test
// (the identity provider's address opened in a new tab), turning on (refused until tested, in the
// page's words), deletion after a confirmation, each verified domain's "Sign in through" with its
// "required" switch, a refusal in the card in the reason's words, both languages, and members not
// offered it.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeApi, fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import Company from './company';

const ORG = {
  orgId: 'org_0123456789abcdef', nameZh: '示例公司', nameEn: 'Example Ltd', status: 'active', members: 2, owners: 1,
  createdAt: 1_760_000_000, createdBy: 'u0', requestedBy: null,
  settings: { allowedMethods: [], defaultRole: 'member', eventApps: [], mfaRequired: false },
};
const P = `/org/${ORG.orgId}`;
const REDIRECT = 'https://id.example.com/api/auth/org/callback';
const conn = (connId: string, over: Record<string, unknown> = {}) => ({
  connId, protocol: 'oidc', nameZh: '示例登录', nameEn: 'Example SSO', jit: 'join', status: 'draft', hasSecret: true, testedAt: null,
  settings: { issuer: 'https://idp.example.com', clientId: 'ciam' }, redirectUri: REDIRECT, createdAt: 1_760_000_000, updatedAt: 1_760_000_000,
  ...over,
});
const C1 = conn('conn_0000000000000001');
const ON = conn('conn_0000000000000002', { nameEn: 'Example On', nameZh: '已开启登录', status: 'on', testedAt: 1_760_000_100 });
const DOMAIN = {
  domain: 'example.com', display: 'example.com', status: 'verified', method: 'dns', enrolment: 'off', addedAt: 1_760_000_000, addedBy: 'u1',
  expiresAt: null, verifiedAt: 1_760_000_100, record: null, signIn: null,
};

let api: FakeApi;
const routes = [{ path: '/:language/personal/company', element: <Company /> }];
function serve(role: string, connections: unknown[] = [C1, ON], domains: unknown[] = [DOMAIN]) {
  api = fakeApi({
    'GET /auth/info': () => [200, { userId: 'u1' }],
    'GET /org/mine': () => [200, { organizations: [{ organization: ORG, role }] }],
    [`GET ${P}`]: () => [200, { organization: ORG, role, next: null, members: [], invitations: [] }],
    [`GET ${P}/audit`]: () => [200, { entries: [] }],
    [`GET ${P}/domains`]: () => [200, { domains }],
    [`GET ${P}/connections`]: () => [200, { connections }],
  });
}
const card = () => screen.getByTestId('org-conns');
const item = (id: string) => card().querySelector<HTMLElement>(`[data-testid="org-conn"][data-conn="${id}"]`)!;
const said = () => screen.getByTestId('org-conns-said').textContent;
/** My company, with no connection yet, for `role`; its form for a new connection of `protocol`. */
async function newForm(role: string, protocol: string) {
  serve(role, []);
  await renderApp(routes, '/en-US/personal/company');
  await settle();
  fireEvent.click(within(card()).getByTestId('org-conn-add'));
  const form = within(card()).getByTestId('org-conn-form');
  fireEvent.change(within(form).getByTestId('org-conn-protocol'), { target: { value: protocol } });
  return form;
}
/** The field labelled `label`, flagged with the server's `message` as its error line. */
function refusedAt(form: HTMLElement, label: string, message: string) {
  const field = within(form).getByLabelText(label);
  expect(field.getAttribute('aria-invalid')).toBe('true');
  expect(document.getElementById(field.getAttribute('aria-describedby')!.split(' ').at(-1)!)?.textContent).toBe(message);
  return field;
}
/** Types into the form's fields, by label. */
const fill = (form: HTMLElement, values: Record<string, string>) =>
  Object.entries(values).forEach(([label, value]) => fireEvent.change(within(form).getByLabelText(label), { target: { value } }));

beforeEach(() => signIn());
afterEach(() => {
  resetApp();
  sessionStorage.clear();
});

describe('the sign-in connections of My company', () => {
  it('lists each connection with its name, protocol and status, and the redirect URI to register', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const first = item(C1.connId);
    expect(within(first).getByTestId('org-conn-name').textContent).toBe('Example SSO');
    expect(first.textContent).toContain('OpenID Connect');
    expect(within(first).getByTestId('org-conn-status').textContent).toBe('Draft: not tested yet');
    expect(first.textContent).toContain('A secret is set');
    expect(within(item(ON.connId)).getByTestId('org-conn-status').textContent).toBe('On');
    // An `on` connection is turned off, a draft turned on.
    expect(within(item(ON.connId)).getByTestId('org-conn-off')).toBeTruthy();
    expect(within(first).getByTestId('org-conn-on')).toBeTruthy();
    expect(within(card()).getByTestId('org-conn-redirect').textContent).toBe(REDIRECT);
  });

  it('is not offered to a member (the server refuses them the list)', async () => {
    serve('member');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    expect(screen.queryByTestId('org-conns')).toBeNull();
    expect(api.callsTo('GET', `${P}/connections`)).toHaveLength(0);
  });

  it('adds an OpenID Connect connection: its own checks first, a refusal at the field the server names, then the body sent', async () => {
    serve('admin', []);
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    expect(within(card()).getByTestId('org-conns-none')).toBeTruthy();
    fireEvent.click(within(card()).getByTestId('org-conn-add'));
    const form = within(card()).getByTestId('org-conn-form');
    // The protocols the API accepts.
    expect([...(within(form).getByTestId('org-conn-protocol') as HTMLSelectElement).options].map((o) => o.value)).toEqual(['oidc', 'wecom', 'dingtalk', 'feishu']);
    fireEvent.submit(form);
    expect(form.textContent).toContain('Give a name in at least one language');
    expect(form.textContent).toContain("Give the identity provider's issuer, an https address");
    expect(form.textContent).toContain('Give the client ID your identity provider issued');
    expect(form.textContent).toContain('Give the client secret');
    expect(api.callsTo('POST', `${P}/connections`)).toHaveLength(0);

    fireEvent.change(within(form).getByLabelText('Name in English'), { target: { value: 'Acme SSO' } });
    fireEvent.change(within(form).getByLabelText('Issuer'), { target: { value: 'http://idp.acme.com' } });
    fireEvent.change(within(form).getByLabelText('Client ID'), { target: { value: 'ciam-app' } });
    fireEvent.change(within(form).getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(within(form).getByTestId('org-conn-jit-join'));
    api.answers[`POST ${P}/connections`] = () => [400, { reason: 'INVALID_PARAMETER', field: 'issuer', message: 'Must be an https address', code: 400 }];
    fireEvent.submit(form);
    await settle();
    const issuer = refusedAt(form, 'Issuer', 'Must be an https address');

    fireEvent.change(issuer, { target: { value: 'https://idp.acme.com' } });
    api.answers[`POST ${P}/connections`] = () => [201, conn('conn_0000000000000009', { nameEn: 'Acme SSO', nameZh: 'Acme SSO', settings: { issuer: 'https://idp.acme.com', clientId: 'ciam-app' } })];
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `${P}/connections`)[1]?.body).toEqual({
      nameZh: null, nameEn: 'Acme SSO', protocol: 'oidc', settings: { issuer: 'https://idp.acme.com', clientId: 'ciam-app' }, secret: 's3cret', jit: 'join',
    });
    expect(within(item('conn_0000000000000009')).getByTestId('org-conn-status').textContent).toBe('Draft: not tested yet');
    expect(said()).toBe('Acme SSO was added as a draft: register the redirect URI at your identity provider, then test it.');
    expect(within(card()).getByTestId('org-conn-redirect').textContent).toBe(REDIRECT);
  });

  it('the limit of ten is said in the page’s words', async () => {
    const form = await newForm('admin', 'oidc');
    fireEvent.change(within(form).getByLabelText('Name in Chinese'), { target: { value: '示例' } });
    fireEvent.change(within(form).getByLabelText('Issuer'), { target: { value: 'https://idp.acme.com' } });
    fireEvent.change(within(form).getByLabelText('Client ID'), { target: { value: 'c' } });
    fireEvent.change(within(form).getByLabelText('Client secret'), { target: { value: 's' } });
    api.answers[`POST ${P}/connections`] = () => [400, { reason: 'INVALID_PARAMETER', field: 'connections', message: 'at most 10', code: 400 }];
    fireEvent.submit(form);
    await settle();
    expect(within(form).getByTestId('org-conn-form-note').textContent).toBe('An organization has at most 10 sign-in connections: delete one first.');
  });

  it('changes a connection keeping its secret (write-only: "a secret is set")', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-edit'));
    const form = within(card()).getByTestId('org-conn-form');
    expect(within(form).getByTestId('org-conn-has-secret').textContent).toContain('A secret is set');
    expect((within(form).getByLabelText('Client secret') as HTMLInputElement).value).toBe('');
    expect((within(form).getByLabelText('Issuer') as HTMLInputElement).value).toBe('https://idp.example.com');
    fireEvent.change(within(form).getByLabelText('Client ID'), { target: { value: 'ciam-2' } });
    api.answers[`PATCH ${P}/connections/${C1.connId}`] = () => [200, { ...C1, settings: { ...C1.settings, clientId: 'ciam-2' } }];
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('PATCH', `${P}/connections/${C1.connId}`)[0]?.body).toEqual({
      nameZh: '示例登录', nameEn: 'Example SSO', settings: { issuer: 'https://idp.example.com', clientId: 'ciam-2' }, jit: 'join', secret: null,
    });
    expect(said()).toBe('Example SSO was saved.');
    expect(within(card()).queryByTestId('org-conn-form')).toBeNull();
  });

  it('tests a connection (the identity provider opens in a new tab), and turns it on only once tested', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    // The identity provider does not answer: said in the card's words.
    api.answers[`POST ${P}/connections/${C1.connId}/test`] = () => [503, { reason: 'SERVICE_UNAVAILABLE', message: 'discovery failed', code: 503 }];
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-test'));
    await settle();
    expect(screen.getByTestId('org-conns-unreachable').textContent).toBe("Example SSO's identity provider could not be reached: check the issuer, then test again.");
    expect(within(item(C1.connId)).queryByTestId('org-conn-test-open')).toBeNull();
    api.answers[`POST ${P}/connections/${C1.connId}/test`] = () => [200, { url: 'https://idp.example.com/authorize?state=s' }];
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-test'));
    await settle();
    const link = within(item(C1.connId)).getByTestId('org-conn-test-open');
    expect(link.getAttribute('href')).toBe('https://idp.example.com/authorize?state=s');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toContain('noopener');
    expect(screen.getByTestId('org-conns-unreachable').textContent).toBe('');

    api.answers[`PATCH ${P}/connections/${C1.connId}`] = () => [400, { reason: 'INVALID_PARAMETER', field: 'on', message: 'not tested', code: 400 }];
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-on'));
    await settle();
    expect(said()).toBe('Test Example SSO first: only a connection whose test passed can be turned on.');

    // Back from the test's tab: the list is read again, and the test passed.
    const tested = { ...C1, status: 'tested', testedAt: 1_760_000_200 };
    api.answers[`GET ${P}/connections`] = () => [200, { connections: [tested, ON] }];
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-test-check'));
    await settle();
    expect(within(item(C1.connId)).getByTestId('org-conn-status').textContent).toBe('Tested: ready to turn on');
    api.answers[`PATCH ${P}/connections/${C1.connId}`] = () => [200, { ...tested, status: 'on' }];
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-on'));
    await settle();
    expect(api.callsTo('PATCH', `${P}/connections/${C1.connId}`).map((c) => c.body)).toEqual([{ on: true }, { on: true }]);
    expect(within(item(C1.connId)).getByTestId('org-conn-status').textContent).toBe('On');
    expect(said()).toBe('Example SSO is on: route a verified domain to it below.');
  });

  it('deletes a connection only after a confirmation', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-remove'));
    const d = screen.getByTestId('org-conn-dialog');
    expect(d.textContent).toContain('Delete Example SSO?');
    fireEvent.click(within(d).getByRole('button', { name: 'Cancel' }));
    expect(api.callsTo('DELETE', `${P}/connections/${C1.connId}`)).toHaveLength(0);
    fireEvent.click(within(item(C1.connId)).getByTestId('org-conn-remove'));
    api.answers[`DELETE ${P}/connections/${C1.connId}`] = () => [200, { ok: true }];
    api.answers[`GET ${P}/connections`] = () => [200, { connections: [ON] }];
    fireEvent.click(screen.getByTestId('org-conn-confirm'));
    await settle();
    expect(api.callsTo('DELETE', `${P}/connections/${C1.connId}`)).toHaveLength(1);
    expect(card().querySelector(`[data-conn="${C1.connId}"]`)).toBeNull();
    expect(said()).toBe('Example SSO was deleted.');
  });

  it('routes a verified domain to a connection that is on, then makes it required; a refusal is said in the card', async () => {
    serve('owner', [C1, ON], [DOMAIN, { ...DOMAIN, domain: 'pending.com', display: 'pending.com', status: 'pending', verifiedAt: null }]);
    await renderApp(routes, '/en-US/personal/company');
    await settle();
    const routing = within(card()).getByTestId('org-conn-routing');
    // Verified domains only.
    expect(within(routing).getAllByTestId('org-conn-route').map((r) => r.dataset.domain)).toEqual(['example.com']);
    const select = within(routing).getByTestId('org-conn-route-select') as HTMLSelectElement;
    // Only the connection that is on can be chosen.
    expect([...select.options].map((o) => o.value)).toEqual(['', ON.connId]);
    const required = within(routing).getByTestId('org-conn-route-required') as HTMLInputElement;
    expect(required.disabled).toBe(true);

    api.answers[`PUT ${P}/domains/example.com/sign-in`] = () => [409, { reason: 'CONNECTION_NOT_ON', message: '', code: 409 }];
    fireEvent.change(select, { target: { value: ON.connId } });
    await settle();
    expect(within(routing).getByTestId('org-conn-routing-error').textContent).toBe('Turn this sign-in connection on first: only a connection that is on can sign people in');

    api.answers[`PUT ${P}/domains/example.com/sign-in`] = () => [200, { ...DOMAIN, signIn: { connId: ON.connId, required: false } }];
    fireEvent.change(select, { target: { value: ON.connId } });
    await settle();
    expect(screen.getByTestId('org-conn-routing-said').textContent).toBe('example.com signs in through Example On.');
    expect(within(routing).getByTestId('org-conn-routing-error').textContent).toBe('');
    expect(select.value).toBe(ON.connId);
    api.answers[`PUT ${P}/domains/example.com/sign-in`] = () => [200, { ...DOMAIN, signIn: { connId: ON.connId, required: true } }];
    fireEvent.click(within(routing).getByTestId('org-conn-route-required'));
    await settle();
    expect(api.callsTo('PUT', `${P}/domains/example.com/sign-in`).map((c) => c.body)).toEqual([
      { connId: ON.connId, required: false },
      { connId: ON.connId, required: false },
      { connId: ON.connId, required: true },
    ]);
    expect(screen.getByTestId('org-conn-routing-said').textContent).toBe('example.com must sign in through Example On.');
  });

  it('adds a WeCom connection: its own fields and words, the AgentID checked, a refusal naming agentId said there, the corp shown in the list', async () => {
    const form = await newForm('owner', 'wecom');
    // The platform's fields, not OpenID Connect's; its secret in its words.
    expect(within(form).queryByLabelText('Issuer')).toBeNull();
    expect(within(form).queryByLabelText('Client ID')).toBeNull();
    fireEvent.submit(form);
    expect(form.textContent).toContain("Give your company's CorpID");
    expect(form.textContent).toContain("Give the self-built app's AgentID: 1 to 20 digits");
    expect(form.textContent).toContain("Give the self-built app's Secret");
    fill(form, { 'Name in Chinese': '企业微信登录', CorpID: ' ww0123456789abcdef ', AgentID: 'app-1', "The app's Secret (corpsecret)": 'corp-s3cret' });
    fireEvent.submit(form);
    expect(within(form).getByLabelText('AgentID').getAttribute('aria-invalid')).toBe('true');
    expect(api.callsTo('POST', `${P}/connections`)).toHaveLength(0);

    fireEvent.change(within(form).getByLabelText('AgentID'), { target: { value: '1000002' } });
    api.answers[`POST ${P}/connections`] = () => [400, { reason: 'INVALID_PARAMETER', field: 'agentId', message: 'Use 1 to 20 digits', code: 400 }];
    fireEvent.submit(form);
    await settle();
    refusedAt(form, 'AgentID', 'Use 1 to 20 digits');
    expect(api.callsTo('POST', `${P}/connections`)[0]?.body).toEqual({
      nameZh: '企业微信登录', nameEn: null, protocol: 'wecom', settings: { corpId: 'ww0123456789abcdef', agentId: '1000002' }, secret: 'corp-s3cret', jit: 'off',
    });

    const made = conn('conn_000000000000000a', { protocol: 'wecom', nameEn: '', nameZh: '企业微信登录', jit: 'off', settings: { corpId: 'ww0123456789abcdef', agentId: '1000002' } });
    api.answers[`POST ${P}/connections`] = () => [201, made];
    fireEvent.submit(form);
    await settle();
    const row = item('conn_000000000000000a');
    expect(row.textContent).toContain('WeCom');
    expect(within(row).getByTestId('org-conn-pinned').textContent).toBe('ww0123456789abcdef');
  });

  it('adds a Feishu connection with its tenant and edition; the list shows the tenant', async () => {
    const form = await newForm('admin', 'feishu');
    fill(form, { 'Name in English': 'Acme Feishu', 'App ID': 'cli_a1b2c3', 'Tenant key': 'tenant-736', 'App secret': 'app-s3cret' });
    fireEvent.click(within(form).getByTestId('org-conn-jit-join'));
    // The edition left at the deployment's: not sent.
    const made = conn('conn_000000000000000b', { protocol: 'feishu', nameEn: 'Acme Feishu', nameZh: '', settings: { appId: 'cli_a1b2c3', tenantKey: 'tenant-736' } });
    api.answers[`POST ${P}/connections`] = () => [201, made];
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `${P}/connections`)[0]?.body).toEqual({
      nameZh: null, nameEn: 'Acme Feishu', protocol: 'feishu', settings: { appId: 'cli_a1b2c3', tenantKey: 'tenant-736' }, secret: 'app-s3cret', jit: 'join',
    });
    const row = item('conn_000000000000000b');
    expect(row.textContent).toContain('Feishu / Lark');
    expect(within(row).getByTestId('org-conn-pinned').textContent).toBe('tenant-736');

    // Lark's edition chosen: sent as the region.
    fireEvent.click(within(card()).getByTestId('org-conn-add'));
    const again = within(card()).getByTestId('org-conn-form');
    fireEvent.change(within(again).getByTestId('org-conn-protocol'), { target: { value: 'feishu' } });
    fill(again, { 'Name in English': 'Acme Lark', 'App ID': 'cli_x', 'Tenant key': 't2', Edition: 'lark', 'App secret': 's' });
    fireEvent.submit(again);
    await settle();
    expect((api.callsTo('POST', `${P}/connections`)[1]?.body as { settings: unknown }).settings).toEqual({ appId: 'cli_x', tenantKey: 't2', region: 'lark' });
  });

  it('speaks Chinese', async () => {
    serve('owner');
    await renderApp(routes, '/zh-CN/personal/company', { locale: 'zh-CN' });
    await settle();
    expect(within(card()).getByRole('heading', { level: 2 }).textContent).toBe('登录连接');
    expect(within(item(C1.connId)).getByTestId('org-conn-name').textContent).toBe('示例登录');
    expect(within(item(C1.connId)).getByTestId('org-conn-status').textContent).toBe('草稿：尚未测试');
    expect(within(item(ON.connId)).getByTestId('org-conn-off').textContent).toBe('关闭');
  });
});
