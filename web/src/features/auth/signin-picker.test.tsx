// "Choose an account" on the sign-in screen: name over the masked account, forgetting an account
// by keyboard with a confirmation in its row, the heading no larger than the page title.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import * as accounts from '../../lib/accounts';
import { learnName, nameOf } from '../../lib/account-picker';
import { fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp } from '../../testing/render-app';
import SignIn from './signin';

afterEach(() => {
  resetApp();
  localStorage.clear();
});

const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));

async function picker(locale: 'en-US' | 'zh-CN' = 'en-US') {
  fakeApi({});
  await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], `/${locale}/passport/signin`, { locale });
  return screen.getAllByTestId('remembered-account');
}

describe('account picker', () => {
  it('shows the name over the masked account, never the full address', async () => {
    accounts.remember('a.very.long.mail.address.for.testing@example-industrial-company.com', 1);
    accounts.remember('ann@example.com', 2);
    learnName({ userName: 'annlee', displayName: 'Ann Lee', mail: 'an***@example.com', phone: null });
    const rows = await picker();
    expect(rows.map((r) => r.querySelector('.account-pick')?.textContent)).toEqual(['Ann Leean***@example.com', 'a.***@example-industrial-company.com']);
    expect(screen.getByRole('heading', { level: 2 }).className).toBe('accounts-title');
    expect(within(rows[0]!).getByRole('button', { name: 'Remove an***@example.com' })).toBeTruthy();
  });

  it('forgets an account by keyboard after asking, and keeps it on "Keep"', async () => {
    accounts.remember('bob@example.com', 1);
    accounts.remember('ann@example.com', 2);
    learnName({ userName: 'annlee', displayName: 'Ann Lee', mail: 'an***@example.com', phone: null });
    const rows = await picker('zh-CN');
    fireEvent.click(within(rows[0]!).getByRole('button', { name: '移除 an***@example.com' }));
    // The question takes the row; "Keep" has the focus and gives it back to the remove button.
    expect(screen.getByText('要在此浏览器上移除 an***@example.com 吗？')).toBeTruthy();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('forget-keep');
    fireEvent.click(screen.getByTestId('forget-keep'));
    await frame();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('forget-account');
    expect(accounts.list()).toHaveLength(2);
    fireEvent.click(within(screen.getAllByTestId('remembered-account')[0]!).getByTestId('forget-account'));
    fireEvent.click(screen.getByTestId('forget-confirm'));
    await frame();
    expect(accounts.list().map((r) => r.account)).toEqual(['bob@example.com']);
    expect(nameOf('ann@example.com')).toBeNull();
    expect(screen.getAllByTestId('remembered-account')).toHaveLength(1);
    expect(document.activeElement?.className).toBe('account-pick');
  });
});
