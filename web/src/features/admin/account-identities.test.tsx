// The console account page's linked accounts against a mocked API: each listed with the person's
// id masked, in both languages; an operator unlinks one with a reason (the last way in refused in
// the dialog), a viewer only reads.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { inTurn } from '../../testing/fake-api';
import { resetApp, settle } from '../../testing/render-app';
import { account, confirmWithReason, dialog, open } from './test-kit';

afterEach(() => resetApp());

const list = () => screen.getByTestId('account-identities');

describe('linked accounts on the console account page', () => {
  it('lists them masked, and a viewer cannot unlink', async () => {
    await open('/en-US/admin/accounts/u1', 'viewer');
    const row = within(list()).getByText('WeChat').closest('li')!;
    expect(row.textContent).toContain('oK3x…9Q');
    expect(row.textContent).toContain('Zhang');
    expect(row.textContent).toContain('last used on 2025-12-31');
    expect(screen.queryByTestId('unlink-wechat')).toBeNull();
  });

  it("names a company's sign-in by its organization and connection, and offers no unlink", async () => {
    const company = {
      provider: 'org:conn_0123456789abcdef',
      subjectMasked: 'a-1…',
      name: null,
      linkedAt: 1_767_225_600,
      lastDay: null,
      organization: { orgId: 'org_0123456789abcdef', nameZh: '艾克米公司', nameEn: 'Acme', connectionZh: '公司登录', connectionEn: 'Acme sign-in' },
    };
    await open('/en-US/admin/accounts/u1', 'operator', { 'GET /admin/accounts/u1': () => [200, { ...account, identities: [company] }] });
    await settle();
    expect(within(list()).getByText('Acme · Acme sign-in')).toBeTruthy();
    expect(screen.queryByTestId('unlink-org:conn_0123456789abcdef')).toBeNull();
  });

  it('says it in Chinese', async () => {
    await open('/zh-CN/admin/accounts/u1', 'operator', {}, 'zh-CN');
    expect(within(list()).getByText('微信')).toBeTruthy();
    expect(screen.getByRole('button', { name: '解除微信关联' })).toBeTruthy();
  });

  it('unlinks with a reason; the last way in stays in the dialog', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'operator', {
      'POST /admin/accounts/u1/unlink-identity': inTurn(
        [409, { reason: 'FEDERATION_LAST_WAY_IN', message: '', code: 409 }],
        [200, { ok: true }],
      ),
      'GET /admin/accounts/u1': inTurn([200, account], [200, { ...account, identities: [] }]),
    });
    fireEvent.click(screen.getByRole('button', { name: 'Unlink WeChat' }));
    expect(dialog('unlink-dialog').textContent).toContain('Unlink WeChat from ann?');
    await confirmWithReason('unlink-dialog', 'Ticket 7: lost the phone');
    expect(fake.callsTo('POST', '/admin/accounts/u1/unlink-identity')[0]?.body).toEqual({ provider: 'wechat', reason: 'Ticket 7: lost the phone' });
    expect(within(dialog('unlink-dialog')).getByTestId('reason-dialog-error').textContent).toContain('last way to sign in');
    fireEvent.click(within(dialog('unlink-dialog')).getByTestId('reason-confirm'));
    await settle();
    expect(screen.queryByTestId('unlink-dialog')).toBeNull();
    expect(screen.getByTestId('unlink-done').textContent).toBe('The WeChat account was unlinked.');
    expect(screen.queryByTestId('account-identities')).toBeNull();
  });
});
