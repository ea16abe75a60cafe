// The account page in the order the support desk needs it (issue 34 item 3), in both languages:
// the status and its action first, then the failed sign-in attempts (time, address, device), the
// desk's notes (saved by an operator, read by a viewer), then the profile.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { resetApp, settle } from '../../testing/render-app';
import { account, AT, open } from './test-kit';

afterEach(() => resetApp());

const attempts = {
  ...account,
  failedAttempts: [
    { at: AT - 60, way: 'password', ip: '203.0.113.7', device: 'Chrome on Windows', country: 'DE' },
    { at: AT - 120, way: 'code', ip: null, device: null, country: null },
  ],
  notes: { text: 'Called twice about the lock.', at: AT - 3600, by: 'op2', byName: 'desk' },
};

/** The sections' headings, in the page's order. */
const order = () => [...document.querySelectorAll('main section > h2, section.card > h2')].map((h) => h.textContent);

describe('the account page', () => {
  it('starts with the lock and Unlock, then the failed attempts and the notes (en-US)', async () => {
    await open('/en-US/admin/accounts/u1', 'operator', { 'GET /admin/accounts/u1': () => [200, attempts] });
    expect(order().slice(0, 4)).toEqual(['Status', 'Failed sign-in attempts', 'Support notes', 'Profile']);
    expect(screen.getByTestId('account-status').textContent).toBe('Locked');
    expect(screen.getByTestId('account-status-detail').textContent).toMatch(/^Locked until /);
    // Unlock is the first button of the page.
    const first = document.querySelector('main button, .console-screen button');
    expect(first).toBe(screen.getByTestId('action-unlock'));
    const list = screen.getByTestId('account-attempts');
    const rows = [...list.querySelectorAll('li')].map((li) => li.textContent);
    expect(rows[0]).toContain('Wrong password');
    expect(rows[0]).toContain('Address 203.0.113.7');
    // The country by its name, not its code (issue 34 item 7).
    expect(rows[0]).toContain('Chrome on Windows · Germany');
    expect(rows[1]).toContain('Wrong sign-in code');
    expect(rows[1]).toContain('Address unknown');
    expect(rows[1]).toContain('Unknown device');
    expect(screen.getByTestId('notes-last').textContent).toMatch(/^Last changed by desk, /);
  });

  it('says the same in Chinese (zh-CN)', async () => {
    await open('/zh-CN/admin/accounts/u1', 'operator', { 'GET /admin/accounts/u1': () => [200, attempts] }, 'zh-CN');
    expect(order().slice(0, 4)).toEqual(['状态', '登录失败记录', '客服备注', '资料']);
    expect(screen.getByTestId('account-status-detail').textContent).toMatch(/^锁定至 /);
    const rows = [...screen.getByTestId('account-attempts').querySelectorAll('li')].map((li) => li.textContent);
    expect(rows[0]).toContain('密码错误');
    expect(rows[0]).toContain('地址 203.0.113.7');
    expect(rows[0]).toContain('Chrome on Windows · 德国');
    expect(rows[0]).not.toMatch(/\bDE\b/);
    expect(rows[1]).toContain('登录验证码错误');
    expect(screen.getByTestId('notes-last').textContent).toMatch(/^最后修改：desk，/);
  });

  it('a suspended account shows since when and Reactivate first; no attempts kept is said', async () => {
    await open('/en-US/admin/accounts/u1', 'operator', {
      'GET /admin/accounts/u1': () => [200, { ...account, status: 'suspended', lockedUntil: null, suspendedAt: AT - 86_400 }],
    });
    expect(screen.getByTestId('account-status').textContent).toBe('Suspended');
    expect(screen.getByTestId('account-status-detail').textContent).toMatch(/^Suspended since /);
    expect(document.querySelector('.console-screen button')).toBe(screen.getByTestId('action-reactivate'));
    expect(screen.getByTestId('attempts-none').textContent).toBe('No failed sign-in attempts are kept.');
  });

  it('an operator saves the notes; the confirmation takes the focus; too long is said at the field', async () => {
    const { fake } = await open('/en-US/admin/accounts/u1', 'operator', {
      'PUT /admin/accounts/u1/notes': () => [200, { notes: { text: 'New note', at: AT, by: 'op1', byName: 'op' } }],
    });
    const area = screen.getByLabelText('Notes for the support desk');
    fireEvent.change(area, { target: { value: 'x'.repeat(2001) } });
    fireEvent.click(screen.getByTestId('notes-save'));
    await settle();
    expect(fake.callsTo('PUT', '/admin/accounts/u1/notes')).toHaveLength(0);
    expect(area.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(area);
    expect(screen.getByText('At most 2,000 characters')).toBeTruthy();

    fireEvent.change(area, { target: { value: 'New note' } });
    expect(screen.getByText(/1,992 characters left/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('notes-save'));
    await settle();
    expect(fake.callsTo('PUT', '/admin/accounts/u1/notes')[0]?.body).toEqual({ notes: 'New note' });
    const saved = screen.getByTestId('notes-saved');
    expect(saved.textContent).toBe('The notes are saved.');
    await settle();
    expect(document.activeElement).toBe(saved);
  });

  it('a viewer reads the notes and cannot change them', async () => {
    await open('/en-US/admin/accounts/u1', 'viewer', { 'GET /admin/accounts/u1': () => [200, attempts] });
    expect(screen.getByTestId('notes-text').textContent).toBe('Called twice about the lock.');
    expect(screen.queryByTestId('notes-form')).toBeNull();
    expect(screen.queryByTestId('action-unlock')).toBeNull();
  });
});
