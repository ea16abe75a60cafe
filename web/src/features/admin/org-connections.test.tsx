// An organization's sign-in connections in the console against a mocked API: a viewer reads them
// and the verified domains' routing, offered no change; an operator adds one, tests it (the
// identity provider's address to open), turns it on (refused until tested, in the console's words),
// routes a verified domain and deletes, each with a reason; a DingTalk one with My company's fields.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { resetApp } from '../../testing/render-app';
import { AT, confirmWithReason, dialog, open, type } from './test-kit';

afterEach(() => resetApp());

const ORG = 'org_0123456789abcdef';
const P = `/admin/organizations/${ORG}`;
const detail = {
  organization: {
    orgId: ORG, nameZh: '艾克姆', nameEn: 'Acme', status: 'active', owners: 1, members: 1, createdAt: AT - 86_400, createdBy: 'op1', requestedBy: null,
    settings: { mfaRequired: false, allowedMethods: [], defaultRole: 'member', eventApps: [] },
  },
  members: [],
  invitations: [],
  audit: [],
};
const REDIRECT = 'https://id.example.com/api/auth/org/callback';
const conn = (connId: string, over: Record<string, unknown> = {}) => ({
  connId, protocol: 'oidc', nameZh: '艾克姆登录', nameEn: 'Acme SSO', jit: 'off', status: 'draft', hasSecret: true, testedAt: null,
  settings: { issuer: 'https://idp.acme.com', clientId: 'ciam' }, redirectUri: REDIRECT, createdAt: AT, updatedAt: AT,
  ...over,
});
const C1 = conn('conn_0000000000000001');
const ON = conn('conn_0000000000000002', { nameEn: 'Acme On', status: 'on', testedAt: AT });
const DOMAIN = {
  domain: 'acme.com', display: 'acme.com', status: 'verified', method: 'dns', enrolment: 'off', addedAt: AT - 60, addedBy: 'u1', expiresAt: null, verifiedAt: AT - 30, record: null,
  signIn: { connId: ON.connId, required: true },
};
const base = {
  [`GET ${P}`]: () => [200, detail] as [number, unknown],
  [`GET ${P}/domains`]: () => [200, { domains: [DOMAIN] }] as [number, unknown],
  [`GET ${P}/connections`]: () => [200, { connections: [C1, ON] }] as [number, unknown],
};

describe("an organization's sign-in connections in the console", () => {
  it('a viewer reads them and the routing of the verified domains, and is offered no change', async () => {
    await open(`/en-US${P}`, 'viewer', base);
    const table = await screen.findByTestId('org-conns');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.dataset.conn)).toEqual([C1.connId, ON.connId]);
    expect(rows[0]!.textContent).toContain('Acme SSO');
    expect(rows[0]!.textContent).toContain('OpenID Connect');
    expect(rows[0]!.textContent).toContain('Draft');
    expect(rows[0]!.textContent).toContain('https://idp.acme.com');
    expect(rows[1]!.textContent).toContain('On');
    expect(within(table).queryAllByRole('button')).toHaveLength(0);
    expect(screen.queryByTestId('org-conn-add')).toBeNull();
    expect(screen.getByTestId('org-conn-redirect').textContent).toBe(REDIRECT);
    const routing = screen.getByTestId('org-conn-routing');
    expect(routing.textContent).toContain('Acme On');
    expect(routing.textContent).toContain('Yes');
    expect(within(routing).queryAllByRole('combobox')).toHaveLength(0);
  });

  it('an operator adds, tests, turns on, routes and deletes, each with a reason', async () => {
    const { fake } = await open(`/en-US${P}`, 'operator', {
      ...base,
      [`POST ${P}/connections`]: () => [201, conn('conn_0000000000000003', { nameEn: 'Beta' })],
      [`POST ${P}/connections/${C1.connId}/test`]: () => [200, { url: 'https://idp.acme.com/authorize?state=s' }],
      [`PATCH ${P}/connections/${C1.connId}`]: () => [400, { reason: 'INVALID_PARAMETER', field: 'on', message: 'not tested', code: 400 }],
      [`PUT ${P}/domains/acme.com/sign-in`]: () => [200, { ...DOMAIN, signIn: null }],
      [`DELETE ${P}/connections/${C1.connId}`]: () => [200, { ok: true }],
    });
    await screen.findByTestId('org-conns');
    fireEvent.click(screen.getByTestId('org-conn-add'));
    const add = dialog('org-conn-dialog');
    type('Name in English', 'Beta', add);
    type('Issuer', 'https://idp.beta.com', add);
    type('Client ID', 'ciam-beta', add);
    type('Client secret', 's3cret', add);
    await confirmWithReason('org-conn-dialog', 'contract 7');
    expect(fake.callsTo('POST', `${P}/connections`).map((c) => c.body)).toEqual([
      { nameZh: null, nameEn: 'Beta', settings: { issuer: 'https://idp.beta.com', clientId: 'ciam-beta' }, jit: 'off', secret: 's3cret', protocol: 'oidc', reason: 'contract 7' },
    ]);
    expect(screen.getByTestId('org-done').textContent).toBe('Beta was added as a draft.');

    fireEvent.click(screen.getByRole('button', { name: 'Test Acme SSO' }));
    await confirmWithReason('org-conn-dialog', 'customer on the phone');
    expect(fake.callsTo('POST', `${P}/connections/${C1.connId}/test`).map((c) => c.body)).toEqual([{ reason: 'customer on the phone' }]);
    expect(screen.getByTestId('org-conn-test-open').getAttribute('href')).toBe('https://idp.acme.com/authorize?state=s');

    fireEvent.click(screen.getByRole('button', { name: 'Turn on Acme SSO' }));
    await confirmWithReason('org-conn-dialog', 'go live');
    expect(fake.callsTo('PATCH', `${P}/connections/${C1.connId}`).map((c) => c.body)).toEqual([{ on: true, reason: 'go live' }]);
    expect(within(dialog('org-conn-dialog')).getByTestId('reason-dialog-error').textContent).toBe('Test it first: only a connection whose test passed can be turned on.');
    fireEvent.click(within(dialog('org-conn-dialog')).getByRole('button', { name: 'Cancel' }));

    fireEvent.change(screen.getByRole('combobox', { name: 'Sign-in of acme.com' }), { target: { value: '' } });
    expect(dialog('org-conn-dialog').textContent).toContain('Change the sign-in of acme.com?');
    await confirmWithReason('org-conn-dialog', 'customer asked');
    expect(fake.callsTo('PUT', `${P}/domains/acme.com/sign-in`).map((c) => c.body)).toEqual([{ connId: null, required: false, reason: 'customer asked' }]);
    expect(screen.getByTestId('org-done').textContent).toBe('The sign-in of acme.com was changed.');

    fireEvent.click(screen.getByRole('button', { name: 'Delete Acme SSO' }));
    await confirmWithReason('org-conn-dialog', 'replaced');
    expect(fake.callsTo('DELETE', `${P}/connections/${C1.connId}`).map((c) => c.body)).toEqual([{ reason: 'replaced' }]);
    expect(screen.getByTestId('org-done').textContent).toBe('Acme SSO was deleted.');
  });
  it("a test whose identity provider does not answer is said in the connections' words", async () => {
    await open(`/en-US${P}`, 'operator', {
      ...base,
      [`POST ${P}/connections/${C1.connId}/test`]: () => [503, { reason: 'SERVICE_UNAVAILABLE', message: 'unavailable', code: 503 }],
    });
    await screen.findByTestId('org-conns');
    fireEvent.click(screen.getByRole('button', { name: 'Test Acme SSO' }));
    await confirmWithReason('org-conn-dialog', 'customer on the phone');
    expect(within(dialog('org-conn-dialog')).getByTestId('reason-dialog-error').textContent).toBe(
      "Acme SSO's identity provider could not be reached: check the issuer, then test again.",
    );
    expect(screen.queryByTestId('org-conn-test-open')).toBeNull();
  });

  it("an operator adds a DingTalk connection with My company's fields; the list shows each one's corp or issuer", async () => {
    const ding = conn('conn_0000000000000004', { protocol: 'dingtalk', nameEn: 'Acme DingTalk', settings: { clientId: 'dingapp', corpId: 'ding0123' } });
    const { fake } = await open(`/en-US${P}`, 'operator', {
      ...base,
      [`GET ${P}/connections`]: () => [200, { connections: [C1, ding] }],
      [`POST ${P}/connections`]: () => [201, ding],
    });
    await screen.findByTestId('org-conns');
    const pinned = screen.getAllByTestId('org-conn-pinned').map((e) => e.textContent);
    expect(pinned).toEqual(['https://idp.acme.com', 'ding0123']);
    expect(screen.getByTestId('org-conns').textContent).toContain('DingTalk');
    fireEvent.click(screen.getByTestId('org-conn-add'));
    const add = dialog('org-conn-dialog');
    fireEvent.change(within(add).getByRole('combobox', { name: 'Protocol' }), { target: { value: 'dingtalk' } });
    expect(within(add).queryByLabelText('Issuer')).toBeNull();
    const typed = { 'Name in English': 'Acme DingTalk', 'Client ID (AppKey)': 'dingapp', CorpId: 'ding0123', 'Client secret (AppSecret)': 'd1ng' };
    for (const [label, text] of Object.entries(typed)) type(label, text, add);
    await confirmWithReason('org-conn-dialog', 'contract 8');
    expect(fake.callsTo('POST', `${P}/connections`).map((c) => c.body)).toEqual([
      { nameZh: null, nameEn: 'Acme DingTalk', settings: { clientId: 'dingapp', corpId: 'ding0123' }, jit: 'off', secret: 'd1ng', protocol: 'dingtalk', reason: 'contract 8' },
    ]);
  });
});
