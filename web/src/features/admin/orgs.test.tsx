// The organizations' screens against a mocked API: a request approved with a reason; an
// organization's page in Chinese with its numbers, only the changed settings sent, a member
// removed and an invitation revoked, each with a reason; a viewer changes nothing.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { resetApp, settle } from '../../testing/render-app';
import { app, AT, confirmWithReason, dialog, open } from './test-kit';

/** The open dialog's reason (in any language), then its confirm button. */
async function withReason(testId: string, reason: string) {
  const d = dialog(testId);
  fireEvent.change(d.querySelector('textarea[name="reason"]')!, { target: { value: reason } });
  fireEvent.click(within(d).getByTestId('reason-confirm'));
  await settle();
}

afterEach(() => resetApp());

const ORG = 'org_0123456789abcdef';
const organization = {
  orgId: ORG,
  nameZh: '艾克姆',
  nameEn: 'Acme',
  status: 'active',
  settings: { mfaRequired: false, allowedMethods: [], defaultRole: 'member', eventApps: [] },
  owners: 1,
  members: 2,
  createdAt: AT - 86_400,
  createdBy: 'op1',
  requestedBy: null,
};
const detail = {
  organization,
  members: [
    { orgId: ORG, userId: 'u1', role: 'owner', joinedAt: AT - 3600, by: 'op1' },
    { orgId: ORG, userId: 'u2', role: 'member', joinedAt: AT - 60, by: 'u1' },
  ],
  invitations: [
    { invId: 'inv_1', role: 'member', to: 'd***@example.com', by: 'u1', createdAt: AT - 30, expiresAt: AT + 7 * 86_400, status: 'pending' },
    { invId: 'inv_2', role: 'admin', to: 'e***@example.com', by: 'u1', createdAt: AT - 90, expiresAt: AT + 7 * 86_400, status: 'used' },
  ],
  audit: [{ at: AT - 60, actor: 'op1', actorRole: 'operator', action: 'org.approve', target: 'u1', reason: 'contract', detail: null, cursor: 'c1' }],
};

describe('organizations', () => {
  it('approves a request with a reason and says so', async () => {
    const { fake } = await open('/en-US/admin/organizations', 'operator', {
      'GET /admin/organizations/requests': () => [200, { requests: [{ orgId: ORG, nameZh: '艾克姆', nameEn: 'Acme', requestedBy: 'u9', createdAt: AT }] }],
      'GET /admin/organizations': () => [200, { organizations: [] }],
      [`POST /admin/organizations/${ORG}/approve`]: () => [200, organization],
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Approve Acme' }));
    await confirmWithReason('org-decide-dialog', 'contract signed');
    expect(fake.callsTo('POST', `/admin/organizations/${ORG}/approve`).map((c) => c.body)).toEqual([{ reason: 'contract signed' }]);
    expect(screen.getByTestId('orgs-done').textContent).toBe('Acme is approved and active.');
    // The lists are read again.
    expect(fake.callsTo('GET', '/admin/organizations/requests').length).toBe(2);
  });

  it('shows an organization in Chinese and sends only what changed', async () => {
    const { fake } = await open(
      `/zh-CN/admin/organizations/${ORG}`,
      'operator',
      {
        [`GET /admin/organizations/${ORG}`]: () => [200, detail],
        [`GET /admin/organizations/${ORG}/connections`]: () => [200, { connections: [] }],
        [`PATCH /admin/organizations/${ORG}`]: () => [200, organization],
        [`POST /admin/organizations/${ORG}/members/u2`]: () => [200, { ok: true }],
        [`DELETE /admin/organizations/${ORG}/invitations/inv_1`]: () => [200, { ok: true }],
      },
      'zh-CN',
    );
    await screen.findByTestId('org-numbers');
    expect(screen.getByTestId('org-name').textContent).toBe('艾克姆');
    expect([...screen.getByTestId('org-numbers').querySelectorAll('dd')].map((d) => d.textContent)).toEqual(['2', '1', '1']);
    expect(screen.getByTestId('org-status').textContent).toContain('已启用');
    expect(await screen.findByTestId('org-conns-none')).toBeTruthy();

    const apps = await within(screen.getByTestId('org-event-apps')).findByLabelText(app.name['zh-CN']);
    fireEvent.click(apps);
    fireEvent.submit(screen.getByTestId('org-settings'));
    await settle();
    await withReason('org-settings-dialog', '合作方接收事件');
    expect(fake.callsTo('PATCH', `/admin/organizations/${ORG}`).map((c) => c.body)).toEqual([{ eventApps: ['a1'], reason: '合作方接收事件' }]);

    fireEvent.click(screen.getByRole('button', { name: '移除 u2' }));
    await withReason('org-member-dialog', '已离职');
    expect(fake.callsTo('POST', `/admin/organizations/${ORG}/members/u2`).map((c) => c.body)).toEqual([{ remove: true, reason: '已离职' }]);

    // Only the pending invitation can be revoked.
    expect(screen.queryByRole('button', { name: '撤销发给 e***@example.com 的邀请' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '撤销发给 d***@example.com 的邀请' }));
    await withReason('org-revoke-dialog', '地址有误');
    expect(fake.callsTo('DELETE', `/admin/organizations/${ORG}/invitations/inv_1`).map((c) => c.body)).toEqual([{ reason: '地址有误' }]);
    expect(screen.getByTestId('org-done').textContent).toBe('发给 d***@example.com 的邀请已撤销。');
  });

  it('a viewer reads and changes nothing', async () => {
    await open(`/en-US/admin/organizations/${ORG}`, 'viewer', { [`GET /admin/organizations/${ORG}`]: () => [200, detail] });
    await screen.findByTestId('org-numbers');
    expect(screen.queryByTestId('org-suspend')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove u2' })).toBeNull();
    expect(screen.queryByTestId('org-invite')).toBeNull();
    expect(screen.getByTestId('org-audit').textContent).toContain('contract');
  });
});
