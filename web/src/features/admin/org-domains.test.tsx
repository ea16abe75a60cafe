// The domains of an organization in the console against a mocked API: a viewer reads them (the TXT
// record of a pending claim too); an operator adds one, checks its DNS, sets an enrolment and
// removes one, each with a reason, sends a code (the captcha solved in the background) and
// verifies it; a refusal is said in the dialog in the server's words.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetApp } from '../../testing/render-app';
import { AT, confirmWithReason, dialog, open, type } from './test-kit';

afterEach(() => resetApp());

// A captcha challenge whose answer is 3, so it is solved at once.
const salt = 'salt-';
let hash = '';
beforeAll(async () => {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
  hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
});

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
const domain = (name: string, over: Record<string, unknown> = {}) => ({
  domain: name, display: name, status: 'pending', method: 'dns', enrolment: 'off', addedAt: AT - 60, addedBy: 'u1', expiresAt: AT + 30 * 86_400, verifiedAt: null,
  record: { name: `_ciam-verify.${name}`, type: 'TXT', value: 'ciam-verify=abcdefghijklmnopqrstuvwxyz' },
  ...over,
});
const list = [domain('acme.com'), domain('xn--fsqu00a.xn--55qx5d', { display: '例子.公司', status: 'verified', method: 'mail', record: null, verifiedAt: AT - 30, expiresAt: null, enrolment: 'automatic' })];

describe("an organization's domains in the console", () => {
  it('a viewer reads them, the pending TXT record too, and is offered no change', async () => {
    await open(`/en-US${P}`, 'viewer', { [`GET ${P}`]: () => [200, detail], [`GET ${P}/domains`]: () => [200, { domains: list }], [`GET ${P}/connections`]: () => [200, { connections: [] }] });
    const table = await screen.findByTestId('org-domains');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.dataset.domain)).toEqual(['acme.com', 'xn--fsqu00a.xn--55qx5d']);
    expect(rows[0]!.textContent).toContain('_ciam-verify.acme.com');
    expect(rows[1]!.textContent).toContain('例子.公司');
    expect(rows[1]!.textContent).toContain('Automatic');
    expect(within(table).queryAllByRole('button')).toHaveLength(0);
    expect(within(table).queryAllByRole('combobox')).toHaveLength(0);
    expect(screen.queryByTestId('org-domain-add')).toBeNull();
    // Connections: none yet (org-connections.test.tsx).
    expect(await screen.findByTestId('org-conns-none')).toBeTruthy();
  });

  it('an operator adds, checks, sets the enrolment and removes, each with a reason', async () => {
    const { fake } = await open(`/en-US${P}`, 'operator', {
      [`GET ${P}`]: () => [200, detail],
      [`GET ${P}/domains`]: () => [200, { domains: list }],
      [`POST ${P}/domains`]: () => [201, domain('beta.com')],
      [`POST ${P}/domains/acme.com/verify`]: () => [404, { reason: 'DOMAIN_TXT_NOT_FOUND', message: 'Not found: publish ciam-verify=abc', code: 404 }],
      [`PATCH ${P}/domains/xn--fsqu00a.xn--55qx5d`]: () => [200, list[1]],
      [`DELETE ${P}/domains/acme.com`]: () => [200, { ok: true }],
    });
    await screen.findByTestId('org-domains');
    const form = screen.getByTestId('org-domain-add');
    fireEvent.submit(form);
    expect(form.textContent).toContain('Give a domain, e.g. acme.com');
    type('Domain', 'beta.com', form);
    fireEvent.change(within(form).getByRole('combobox'), { target: { value: 'mail' } });
    fireEvent.submit(form);
    await confirmWithReason('org-domain-add-dialog', 'asked by the customer');
    expect(fake.callsTo('POST', `${P}/domains`).map((c) => c.body)).toEqual([{ domain: 'beta.com', method: 'mail', reason: 'asked by the customer' }]);
    expect(screen.getByTestId('org-done').textContent).toBe('beta.com was added, pending its proof.');

    fireEvent.click(screen.getByRole('button', { name: 'Check the DNS record of acme.com' }));
    await confirmWithReason('org-domain-dialog', 'ticket 42');
    expect(fake.callsTo('POST', `${P}/domains/acme.com/verify`).map((c) => c.body)).toEqual([{ reason: 'ticket 42' }]);
    // Refused: said in the dialog, which stays.
    expect(within(dialog('org-domain-dialog')).getByTestId('reason-dialog-error').textContent).toBe('The TXT record was not found: publish it, wait for DNS to update, then verify again');
    fireEvent.click(within(dialog('org-domain-dialog')).getByRole('button', { name: 'Cancel' }));

    fireEvent.change(screen.getByRole('combobox', { name: 'Enrolment of 例子.公司' }), { target: { value: 'suggest' } });
    expect(dialog('org-domain-dialog').textContent).toContain('Set the enrolment of 例子.公司 to Suggest?');
    await confirmWithReason('org-domain-dialog', 'customer asked');
    expect(fake.callsTo('PATCH', `${P}/domains/xn--fsqu00a.xn--55qx5d`).map((c) => c.body)).toEqual([{ enrolment: 'suggest', reason: 'customer asked' }]);

    fireEvent.click(screen.getByRole('button', { name: 'Remove acme.com' }));
    await confirmWithReason('org-domain-dialog', 'domain sold');
    expect(fake.callsTo('DELETE', `${P}/domains/acme.com`).map((c) => c.body)).toEqual([{ reason: 'domain sold' }]);
    expect(screen.getByTestId('org-done').textContent).toBe('acme.com was removed.');
  });

  it('an operator sends a code to an administrative mailbox (the captcha solved in the background), with a reason', async () => {
    const { fake } = await open(`/en-US${P}`, 'operator', {
      [`GET ${P}`]: () => [200, detail],
      [`GET ${P}/domains`]: () => [200, { domains: [domain('beta.com', { method: 'mail', record: null })] }],
      'GET /auth/captcha': () => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }],
      [`POST ${P}/domains/beta.com/code`]: () => [200, { ok: true }],
    });
    await screen.findByTestId('org-domains');
    fireEvent.click(screen.getByRole('button', { name: 'Send a code for beta.com' }));
    type('Administrative address', 'postmaster@beta.com', dialog('org-domain-dialog'));
    await confirmWithReason('org-domain-dialog', 'customer on the phone');
    const [sent] = fake.callsTo('POST', `${P}/domains/beta.com/code`);
    expect(sent?.body).toMatchObject({ mail: 'postmaster@beta.com', reason: 'customer on the phone' });
    expect(typeof (sent?.body as { captcha: string }).captcha).toBe('string');
    expect(screen.getByTestId('org-done').textContent).toBe('A code for beta.com was sent to postmaster@beta.com.');
  });

  it('an operator verifies a mail claim with the code the mailbox received', async () => {
    const { fake } = await open(`/en-US${P}`, 'operator', {
      [`GET ${P}`]: () => [200, detail],
      [`GET ${P}/domains`]: () => [200, { domains: [domain('beta.com', { method: 'mail', record: null })] }],
      [`POST ${P}/domains/beta.com/verify`]: () => [200, domain('beta.com', { method: 'mail', record: null, status: 'verified', verifiedAt: AT })],
    });
    await screen.findByTestId('org-domains');
    fireEvent.click(screen.getByRole('button', { name: 'Verify the code for beta.com' }));
    const d = dialog('org-domain-dialog');
    expect((within(d).getByLabelText('Administrative address') as HTMLInputElement).value).toBe('admin@beta.com');
    type('Code', '123456', d);
    await confirmWithReason('org-domain-dialog', 'on the phone with the customer');
    expect(fake.callsTo('POST', `${P}/domains/beta.com/verify`).map((c) => c.body)).toEqual([
      { mail: 'admin@beta.com', code: '123456', reason: 'on the phone with the customer' },
    ]);
    expect(screen.getByTestId('org-done').textContent).toBe('beta.com is verified.');
  });
});
