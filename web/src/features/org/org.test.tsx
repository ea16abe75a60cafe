// "My company" and the invitation landing in jsdom: what each role is offered, the confirmation
// before a change, the token kept out of the address, and each refusal's own page.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeApi, fakeApi } from '../../testing/fake-api';
import { at, renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import Company from './company';
import Invitation from './invitation';
import { pending } from './pending';

const TOKEN = 'Zk3q9_x-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const ORG = {
  orgId: 'org_0123456789abcdef', nameZh: '示例公司', nameEn: 'Example Ltd', status: 'active', members: 2, owners: 1,
  createdAt: 1_760_000_000, createdBy: 'u0', requestedBy: null,
  settings: { allowedMethods: [], defaultRole: 'member', eventApps: [], mfaRequired: false },
};
const member = (userId: string, role: string) => ({ userId, role, orgId: ORG.orgId, by: 'u1', joinedAt: 1_760_000_000 });
const page = (role: string) => ({
  organization: ORG, role, next: null,
  members: role === 'member' ? [] : [member('u1', role), member('u2', 'member'), member('u3', 'owner')],
  invitations: role === 'member' ? [] : [{ invId: 'inv_1', to: 'bo***@example.com', role: 'member', status: 'pending', by: 'u1', createdAt: 1_760_000_000, expiresAt: 1_760_604_800 }],
});

let api: FakeApi;
const routes = [
  { path: '/:language/personal/company', element: <Company /> },
  { path: '/:language/org/invitation', element: <Invitation /> },
  { path: '/:language/passport/signin', element: <p>sign-in page</p> },
];

function serve(role: string) {
  api = fakeApi({
    'GET /auth/info': () => [200, { userId: 'u1' }],
    'GET /org/mine': () => [200, { organizations: [{ organization: ORG, role }] }],
    [`GET /org/${ORG.orgId}`]: () => [200, page(role)],
    [`GET /org/${ORG.orgId}/connections`]: () => [200, { connections: [] }],
    [`GET /org/${ORG.orgId}/audit`]: () => [200, { entries: [{ at: 1_760_000_000, actor: 'u1', actorRole: 'owner', action: 'invitation.create', target: 'inv_1', reason: null, detail: null, cursor: 'c1' }] }],
  });
}

beforeEach(() => signIn());
afterEach(() => {
  resetApp();
  sessionStorage.clear();
});

describe('My company', () => {
  it('shows a member a read-only view: no members, invitations nor audit log', async () => {
    serve('member');
    await renderApp(routes, '/en-US/personal/company');
    expect(screen.getByTestId('org-item').textContent).toContain('Example Ltd');
    expect(screen.getByTestId('org-role').textContent).toBe('Member');
    expect(screen.getByTestId('org-read-only')).toBeTruthy();
    expect(screen.queryByTestId('org-members')).toBeNull();
    expect(screen.queryByTestId('org-invite-form')).toBeNull();
    expect(api.callsTo('GET', `/org/${ORG.orgId}/audit`)).toHaveLength(0);
  });

  it('offers an admin what an admin may do, and changes a role only after a confirmation', async () => {
    serve('admin');
    await renderApp(routes, '/en-US/personal/company');
    const rows = screen.getAllByTestId('org-member');
    // Oneself and an owner: no controls; another member: role (admin or member) and removal.
    expect(rows.map((r) => within(r).queryAllByRole('button').length)).toEqual([0, 2, 0]);
    const select = within(rows[1]!).getByRole('combobox') as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['admin', 'member']);
    // Invitations as admin or member only.
    const roleSelect = within(screen.getByTestId('org-invite-form')).getByRole('combobox') as HTMLSelectElement;
    expect([...roleSelect.options].map((o) => o.value)).toEqual(['admin', 'member']);
    fireEvent.change(select, { target: { value: 'admin' } });
    fireEvent.click(within(rows[1]!).getByTestId('org-member-change'));
    const dialog = screen.getByTestId('org-member-dialog');
    expect(dialog.textContent).toContain('Make u2 Admin?');
    api.answers[`PUT /org/${ORG.orgId}/members/u2`] = () => [200, member('u2', 'admin')];
    fireEvent.click(within(dialog).getByTestId('org-member-confirm'));
    await settle();
    expect(api.callsTo('PUT', `/org/${ORG.orgId}/members/u2`)[0]?.body).toEqual({ role: 'admin' });
    expect(screen.getByTestId('org-members-said').textContent).toBe('u2 is now Admin.');
    expect(screen.getAllByTestId('org-audit-entry')[0]?.textContent).toContain('Invitation sent');
  });

  it('says a refusal of the server in the card that was used', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    const row = screen.getAllByTestId('org-member')[2]!;
    api.answers[`DELETE /org/${ORG.orgId}/members/u3`] = () => [409, { reason: 'ORG_LAST_OWNER', message: '', code: 409 }];
    fireEvent.click(within(row).getByTestId('org-member-remove'));
    fireEvent.click(screen.getByTestId('org-member-confirm'));
    await settle();
    expect(screen.getByTestId('org-members-error').textContent).toBe('An organization keeps at least one owner: make someone else owner first');
  });

  it('invites by mail, with the role chosen, and lists the invitation', async () => {
    serve('owner');
    await renderApp(routes, '/en-US/personal/company');
    const form = screen.getByTestId('org-invite-form') as HTMLFormElement;
    const to = form.elements.namedItem('to') as HTMLInputElement;
    fireEvent.change(to, { target: { value: 'not-a-mail@' } });
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `/org/${ORG.orgId}/invitations`)).toHaveLength(0);
    expect(to.getAttribute('aria-invalid')).toBe('true');
    api.answers[`POST /org/${ORG.orgId}/invitations`] = () => [201, { invId: 'inv_2', to: 'ca***@example.com', role: 'admin', status: 'pending', by: 'u1', createdAt: 1, expiresAt: 2 }];
    fireEvent.change(to, { target: { value: 'cat@example.com' } });
    fireEvent.change(form.elements.namedItem('role') as HTMLSelectElement, { target: { value: 'admin' } });
    fireEvent.submit(form);
    await settle();
    expect(api.callsTo('POST', `/org/${ORG.orgId}/invitations`)[0]?.body).toEqual({ to: 'cat@example.com', role: 'admin' });
    expect(screen.getAllByTestId('org-invitation')[0]?.textContent).toContain('ca***@example.com');
    expect(screen.getByTestId('org-invitations-said').textContent).toBe('The invitation to ca***@example.com was sent.');
  });
});

describe('the invitation landing', () => {
  it('takes the token out of the address, keeps it in this tab, and sends a signed-out person to sign in', async () => {
    resetApp();
    api = fakeApi({});
    const router = await renderApp(routes, `/en-US/org/invitation?token=${TOKEN}`);
    expect(at(router)).toBe('/en-US/org/invitation');
    expect(pending()).toBe(TOKEN);
    expect(document.querySelector('meta[name="referrer"]')?.getAttribute('content')).toBe('no-referrer');
    expect(screen.getByTestId('org-invitation').dataset.state).toBe('signedOut');
    expect(api.calls).toHaveLength(0);
    fireEvent.click(screen.getByTestId('invitation-signup'));
    expect(localStorage.getItem('ciam_origin_url')).toBe('/en-US/org/invitation');
  });

  it('accepts once signed in and lands in My company on that organization', async () => {
    serve('member');
    api.answers['POST /org/invitations/accept'] = () => [200, member('u1', 'member')];
    const router = await renderApp(routes, `/en-US/org/invitation?token=${TOKEN}`);
    await settle();
    expect(api.callsTo('POST', '/org/invitations/accept')[0]?.body).toEqual({ token: TOKEN });
    expect(at(router)).toBe(`/en-US/personal/company?org=${ORG.orgId}`);
    expect(screen.getByTestId('org-joined').textContent).toBe('You joined Example Ltd.');
    expect(pending()).toBeNull();
  });

  it.each([
    ['ORG_INVITATION_EXPIRED', 410, 'This invitation has expired'],
    ['ORG_INVITATION_USED', 409, 'This invitation has already been used'],
    ['ORG_INVITATION_REVOKED', 410, 'This invitation was withdrawn'],
  ])('has a page of its own for %s', async (reason, status, heading) => {
    api = fakeApi({ 'POST /org/invitations/accept': () => [status, { reason, message: '', code: status }] });
    await renderApp(routes, `/en-US/org/invitation?token=${TOKEN}`);
    await settle();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(heading);
    expect(screen.getByTestId('invitation-refused').dataset.reason).toBe(reason);
    expect(pending()).toBeNull();
  });
});
