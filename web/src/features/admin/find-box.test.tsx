// The accounts screen's find box and its lists of locked and suspended accounts, against the fake
// API: one box for every kind, the matches said by kind (masked), "More" for one kind, the
// refusals at the field, both languages; the held lists newest first with "More".
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { at as where, resetApp, settle } from '../../testing/render-app';
import { AT, open, type } from './test-kit';

afterEach(() => resetApp());

const BOX = 'Mail, phone, username, display name or company';

const row = (userId: string, userName: string, extra: object = {}) => ({
  userId,
  userName,
  mail: `${userName.slice(0, 2)}***@example.com`,
  phone: '138****8000',
  company: 'Acme',
  status: 'active',
  lockedUntil: null,
  suspendedAt: null,
  createdAt: AT,
  role: null,
  displayName: null,
  ...extra,
});

describe('the find box', () => {
  it('takes four digits and lists the matches by kind, masked, with More for one kind', async () => {
    const { fake, router } = await open('/en-US/admin/accounts', 'viewer', {
      'GET /admin/search?q=8000': () => [
        200,
        {
          groups: [
            { matched: 'phoneEnd', accounts: [row('u1', 'ann', { status: 'locked', lockedUntil: AT + 900 })], next: 'k1' },
            { matched: 'userName', accounts: [row('u3', '8000fan')] },
          ],
        },
      ],
      'GET /admin/search?q=8000&kind=phoneEnd&after=k1': () => [200, { groups: [{ matched: 'phoneEnd', accounts: [row('u2', 'bob')] }] }],
    });
    expect(screen.getByText(/or its last four digits/)).toBeTruthy();
    type(BOX, ' 8000 ');
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    expect(screen.getByTestId('search-count').textContent).toBe('2 accounts found');
    const byPhone = screen.getByTestId('matches-phoneEnd');
    expect(byPhone.querySelector('caption')?.textContent).toBe("Matched by phone number's last four digits");
    expect(byPhone.textContent).toContain('138****8000');
    expect(byPhone.textContent).toContain('Locked');
    expect(screen.getByTestId('matches-userName').querySelector('caption')?.textContent).toBe('Matched by username');
    fireEvent.click(screen.getByRole('button', { name: "More matches by phone number's last four digits" }));
    await settle();
    expect(fake.callsTo('GET', '/admin/search?q=8000&kind=phoneEnd&after=k1')).toHaveLength(1);
    const names = [...screen.getByTestId('matches-phoneEnd').querySelectorAll('tbody th')].map((t) => t.textContent);
    expect(names).toEqual(['ann', 'bob']);
    expect(screen.queryByRole('button', { name: /More matches/ })).toBeNull();
    fireEvent.click(within(screen.getByTestId('matches-phoneEnd')).getByRole('link', { name: 'ann' }));
    await settle();
    expect(where(router)).toBe('/en-US/admin/accounts/u1');
  });

  it('says when nothing matches, and a refusal at the field', async () => {
    await open('/en-US/admin/accounts', 'viewer', {
      'GET /admin/search?q=nobody%40example.com': () => [200, { groups: [] }],
      'GET /admin/search?q=zz': () => [400, { reason: 'INVALID_PARAMETER', message: 'Not now', code: 400, field: 'q' }],
    });
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    const input = screen.getByLabelText(BOX);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input);
    type(BOX, 'nobody@example.com');
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    expect(screen.getByTestId('search-count').textContent).toBe('No account matches.');
    type(BOX, 'zz');
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });

  it('speaks Chinese', async () => {
    await open(
      '/zh-CN/admin/accounts',
      'viewer',
      { 'GET /admin/search?q=%E5%BC%A0': () => [200, { groups: [{ matched: 'displayName', accounts: [row('u1', 'zhangwei', { displayName: '张伟' })] }] }] },
      'zh-CN',
    );
    type('邮箱、手机号、用户名、显示名称或公司', '张');
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    const t = screen.getByTestId('matches-displayName');
    expect(t.querySelector('caption')?.textContent).toBe('按显示名称匹配');
    expect(t.textContent).toContain('张伟');
    expect(screen.getByTestId('search-count').textContent).toBe('找到 1 个账号');
  });
});

describe('the held lists', () => {
  it('lists the locked accounts with their unlock time, then the suspended ones, with More', async () => {
    const { fake } = await open('/en-US/admin/accounts', 'viewer', {
      'GET /admin/held?status=locked': () => [200, { accounts: [row('u1', 'ann', { status: 'locked', lockedUntil: AT + 900 })] }],
      'GET /admin/held?status=suspended': () => [200, { accounts: [row('u2', 'bob', { status: 'suspended', suspendedAt: AT })], next: 'k2' }],
      'GET /admin/held?status=suspended&after=k2': () => [200, { accounts: [row('u3', 'cyd', { status: 'suspended', suspendedAt: AT - 60 })] }],
    });
    const locked = screen.getByRole('button', { name: 'Locked accounts' });
    fireEvent.click(locked);
    await settle();
    expect(locked.getAttribute('aria-pressed')).toBe('true');
    const table = screen.getByTestId('held');
    expect(table.querySelector('thead')?.textContent).toContain('Locked until');
    expect(table.textContent).toContain('ann');
    fireEvent.click(screen.getByRole('button', { name: 'Suspended accounts' }));
    await settle();
    expect(screen.getByTestId('held').querySelector('thead')?.textContent).toContain('Suspended since');
    fireEvent.click(screen.getByTestId('held-more'));
    await settle();
    expect(fake.callsTo('GET', '/admin/held?status=suspended&after=k2')).toHaveLength(1);
    const names = [...screen.getByTestId('held').querySelectorAll('tbody th')].map((t) => t.textContent);
    expect(names).toEqual(['bob', 'cyd']);
    expect(screen.queryByTestId('held-more')).toBeNull();
  });
});
