// The security centre's linked accounts against a mocked API: the list (a provider, the company
// sign-in, what may be linked, a company's sign-in through an organization's connection) in both languages, linking after the fresh proof (the bind kept in
// this tab, its hash sent, the browser sent to the provider), the way back confirmed with the
// bind and the address cleaned, a refusal brought back, removing after a confirmation with the
// last way in refused in the section, and the section absent when there is nothing to show.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashOfBind } from '../../lib/bind';
import { inTurn, type Reply } from '../../testing/fake-api';
import { resetApp } from '../../testing/render-app';
import { leave, LINK_BIND_KEY, wayBack } from './linked-accounts';
import { callsTo, input, mockFetch, settle, show, state, user } from './test-kit';

const AT = 1_767_225_600;
const LISTED = {
  identities: [{ provider: 'wechat', name: 'Zhang', linkedAt: AT, lastDay: '2026-01-02' }],
  staff: { linked: true },
  available: ['dingtalk'],
};
const REAUTH: Reply = [403, { reason: 'REAUTH_REQUIRED', message: '', code: 403 }];

let went: string[] = [];

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  sessionStorage.clear();
  went = [];
  vi.spyOn(leave, 'to').mockImplementation((url: string) => void went.push(url));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/passkeys': () => [200, { passkeys: [] }],
    'GET /auth/identities': () => [200, LISTED],
    'POST /auth/identities/link': () => [200, { url: 'https://open.example.com/authorize?state=s' }],
  });
});
afterEach(() => {
  resetApp();
  vi.restoreAllMocks();
});

const section = () => screen.getByTestId('linked-accounts');
const note = () => screen.getByTestId('linked-note');

describe('linked accounts in the security centre', () => {
  it('lists the linked account, the company sign-in and what may be linked, in both languages', async () => {
    await show('/en-US/personal/secure');
    expect(within(section()).getByRole('heading', { level: 2 }).textContent).toBe('Linked accounts');
    const row = within(section()).getByTestId('linked');
    expect(row.textContent).toContain('WeChat');
    expect(row.textContent).toContain('Zhang');
    expect(row.textContent).toContain('Last used on 2026-01-02');
    expect(within(row).getByRole('button', { name: 'Remove WeChat' })).toBeTruthy();
    expect(within(section()).getByTestId('linked-staff').textContent).toContain('Managed by your company');
    expect(within(section()).queryAllByRole('button', { name: /Remove/ })).toHaveLength(1);
    expect(within(section()).getByRole('button', { name: 'Link DingTalk' })).toBeTruthy();
  });

  it('says it in Chinese', async () => {
    await show('/zh-CN/personal/secure', 'zh-CN');
    expect(within(section()).getByRole('heading', { level: 2 }).textContent).toBe('关联账号');
    expect(within(section()).getByTestId('linked').textContent).toContain('微信');
    expect(within(section()).getByRole('button', { name: '关联钉钉' })).toBeTruthy();
    expect(within(section()).getByRole('button', { name: '移除微信' })).toBeTruthy();
  });

  it('links after the fresh proof: the bind stays in this tab, its hash goes, the browser leaves', async () => {
    state.answers['POST /auth/identities/link'] = inTurn(REAUTH, [200, { url: 'https://open.example.com/authorize?state=s' }]);
    await show('/en-US/personal/secure');
    fireEvent.click(screen.getByTestId('link-dingtalk'));
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.change(input(dialog.querySelector('form')!, 'password'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(dialog.querySelector('form')!);
    await settle();
    const sent = callsTo('POST', '/auth/identities/link');
    expect(sent).toHaveLength(2);
    const bind = sessionStorage.getItem(LINK_BIND_KEY)!;
    expect(bind.length).toBeGreaterThan(40);
    expect(sent[1]!.body).toEqual({ provider: 'dingtalk', bindHash: await hashOfBind(bind) });
    expect(went).toEqual(['https://open.example.com/authorize?state=s']);
  });

  it('confirms the way back with the kept bind, says so, and cleans the address', async () => {
    sessionStorage.setItem(LINK_BIND_KEY, 'the-bind');
    const router = await show('/en-US/personal/secure?dingtalkLink=tok-1#security');
    await settle();
    expect(callsTo('POST', '/auth/identities/confirm')[0]!.body).toEqual({ provider: 'dingtalk', token: 'tok-1', bind: 'the-bind' });
    expect(note().textContent).toBe('Your DingTalk account is linked.');
    expect(note().getAttribute('role')).toBe('status');
    expect(router.state.location.search).toBe('');
    expect(sessionStorage.getItem(LINK_BIND_KEY)).toBeNull();
  });

  it('says what the provider refused on the way back', async () => {
    await show('/en-US/personal/secure?wechatLinkError=FEDERATION_LINK_EXISTS');
    await settle();
    expect(note().getAttribute('role')).toBe('alert');
    expect(note().textContent).toBe('This account of the provider is already linked to a Ciam account');
    expect(callsTo('POST', '/auth/identities/confirm')).toHaveLength(0);
  });

  it('says a link of another session or tab was not made, without signing out', async () => {
    state.answers['POST /auth/identities/confirm'] = () => [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }];
    await show('/en-US/personal/secure?wechatLink=tok-2');
    await settle();
    expect(note().textContent).toBe('The WeChat account was not linked. Try again.');
    // Not taken for a lost session: the page stays.
    expect(screen.getByTestId('linked-accounts')).toBeTruthy();
  });

  it('removes after a confirmation, and refuses the last way in within the section', async () => {
    await show('/en-US/personal/secure');
    state.answers['DELETE /auth/identities/wechat'] = () => [409, { reason: 'FEDERATION_LAST_WAY_IN', message: '', code: 409 }];
    fireEvent.click(screen.getByTestId('linked-remove'));
    const dialog = screen.getByTestId('linked-remove-dialog');
    expect(dialog.textContent).toContain('Remove the linked WeChat account?');
    fireEvent.click(within(dialog).getByTestId('linked-remove-confirm'));
    await settle();
    expect(note().getAttribute('role')).toBe('alert');
    expect(note().textContent).toContain("This is the account's last way to sign in");
    state.answers['DELETE /auth/identities/wechat'] = () => [200, { ok: true }];
    state.answers['GET /auth/identities'] = () => [200, { ...LISTED, identities: [], available: ['dingtalk', 'wechat'] }];
    fireEvent.click(screen.getByTestId('linked-remove'));
    fireEvent.click(within(screen.getByTestId('linked-remove-dialog')).getByTestId('linked-remove-confirm'));
    await settle();
    expect(callsTo('DELETE', '/auth/identities/wechat')).toHaveLength(2);
    expect(note().textContent).toBe('The WeChat account was removed.');
    expect(screen.getByTestId('link-wechat')).toBeTruthy();
  });

  const COMPANY = {
    provider: 'org:conn_0123456789abcdef',
    name: null,
    linkedAt: AT,
    lastDay: null,
    organization: { orgId: 'org_0123456789abcdef', nameZh: '艾克米公司', nameEn: 'Acme', connectionZh: '公司登录', connectionEn: 'Acme sign-in' },
  };

  it("lists a company's sign-in by its connection and organization, with no Remove", async () => {
    state.answers['GET /auth/identities'] = () => [200, { identities: [COMPANY], available: [] }];
    await show('/en-US/personal/secure');
    await settle();
    const row = within(section()).getByTestId('linked');
    expect(row.textContent).toContain('Acme sign-in');
    expect(row.textContent).toContain('Company sign-in of Acme: managed by your company');
    expect(row.textContent).not.toContain('conn_');
    expect(within(section()).queryAllByRole('button', { name: /Remove/ })).toHaveLength(0);
  });

  it("says a company's sign-in in Chinese", async () => {
    state.answers['GET /auth/identities'] = () => [200, { identities: [COMPANY], available: [] }];
    await show('/zh-CN/personal/secure', 'zh-CN');
    await settle();
    const zh = within(section()).getByTestId('linked');
    expect(zh.textContent).toContain('公司登录');
    expect(zh.textContent).toContain('艾克米公司的企业登录');
    expect(within(section()).queryAllByRole('button', { name: /移除/ })).toHaveLength(0);
  });

  it('is absent when nothing is linked and no provider is configured', async () => {
    state.answers['GET /auth/identities'] = () => [200, { identities: [], available: [] }];
    await show('/en-US/personal/secure');
    await settle();
    expect(screen.queryByTestId('linked-accounts')).toBeNull();
  });

  it('reads the way back from the address', () => {
    expect(wayBack('?wechatLink=t&x=1')).toEqual({ provider: 'wechat', token: 't' });
    expect(wayBack('?feishuLinkError=FEDERATION_CANCELLED')).toEqual({ provider: 'feishu', error: 'FEDERATION_CANCELLED' });
    expect(wayBack('?wechatCode=c')).toBeNull();
  });
});
