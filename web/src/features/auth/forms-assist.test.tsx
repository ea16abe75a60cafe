// Issue 12 §2, the forms that help: autofill values that make password managers save the mail or
// phone with the password.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../testing/fake-api';
import { at, renderApp, resetApp, settle } from '../../testing/render-app';
import * as accounts from '../../lib/accounts';
import FindPassword from './find-password';
import Register from './register';
import SignIn from './signin';

afterEach(() => {
  vi.useRealTimers();
  resetApp();
});

const ac = (f: HTMLFormElement) =>
  Object.fromEntries([...f.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[name], select[name]')]
    .filter((i) => i.type !== 'checkbox')
    .map((i) => [i.name, i.getAttribute('autocomplete')]));

describe('autocomplete', () => {
  it('sign-in by password: username + current-password', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin');
    expect(ac(screen.getByTestId('signin-password') as HTMLFormElement)).toEqual({ account: 'username', password: 'current-password' });
  });

  it('sign-in by code: username + one-time-code', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin');
    fireEvent.click(screen.getByTestId('signin-mode-code'));
    const f = (await screen.findByTestId('signin-code')) as HTMLFormElement;
    expect(ac(f)).toEqual({ account: 'username', code: 'one-time-code' });
  });

  it('sign-up: the account is the username, the display name is not', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], '/en-US/passport/register');
    const f = screen.getByTestId('register') as HTMLFormElement;
    expect(ac(f)).toMatchObject({
      userName: 'nickname', company: 'organization', account: 'username', code: 'one-time-code',
      password: 'new-password', confirmPassword: 'new-password',
    });
    expect(Object.entries(ac(f)).filter(([, v]) => v === 'username').map(([k]) => k)).toEqual(['account']);
  });

  it('password recovery: username + one-time-code + new-password', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/find/password', element: <FindPassword /> }], '/en-US/find/password');
    expect(ac(screen.getByTestId('find-password') as HTMLFormElement)).toEqual({
      account: 'username', code: 'one-time-code', password: 'new-password', confirmPassword: 'new-password',
    });
  });
});

const field = (f: HTMLFormElement, n: string) => f.elements.namedItem(n) as HTMLInputElement;
const AUTH_ROUTES = [
  { path: '/:language/passport/signin', element: <SignIn /> },
  { path: '/:language/passport/register', element: <Register /> },
  { path: '/:language/find/password', element: <FindPassword /> },
];

describe('the sign-in screen after sign-up and recovery', () => {
  it('after sign-up: the account just registered is prefilled (not the picker), the password focused', async () => {
    accounts.remember('old@example.com');
    fakeApi({ 'POST /auth/register': () => [200, {}] });
    const router = await renderApp(AUTH_ROUTES, '/en-US/passport/register?serviceUrl=x');
    const f = screen.getByTestId('register') as HTMLFormElement;
    const set = (n: string, value: string) => fireEvent.change(field(f, n), { target: { value } });
    set('userName', 'ann'); set('company', 'Acme'); set('account', ' ann@example.com '); set('code', '123456');
    set('password', 'Ciam-Demo-2026!'); set('confirmPassword', 'Ciam-Demo-2026!');
    fireEvent.change(f.elements.namedItem('country') as HTMLSelectElement, { target: { value: 'CN' } });
    fireEvent.click(f.elements.namedItem('acceptTerms') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(at(router)).toBe('/en-US/passport/signin?serviceUrl=x');
    const s = screen.getByTestId('signin-password') as HTMLFormElement;
    expect(field(s, 'account').value).toBe('ann@example.com');
    expect(document.activeElement).toBe(field(s, 'password'));
  });

  it('after a password reset: the account is prefilled', async () => {
    fakeApi({ 'PATCH /auth/pwd': () => [200, {}] });
    const router = await renderApp(AUTH_ROUTES, '/en-US/find/password');
    const f = screen.getByTestId('find-password') as HTMLFormElement;
    const set = (n: string, value: string) => fireEvent.change(field(f, n), { target: { value } });
    set('account', '13800138000'); set('code', '123456'); set('password', 'Ciam-Demo-2026!'); set('confirmPassword', 'Ciam-Demo-2026!');
    fireEvent.submit(f);
    await settle();
    expect(at(router)).toBe('/en-US/passport/signin');
    const s = screen.getByTestId('signin-password') as HTMLFormElement;
    expect(field(s, 'account').value).toBe('13800138000');
    expect(document.activeElement).toBe(field(s, 'password'));
  });

  it('a plain visit is not prefilled', async () => {
    fakeApi();
    await renderApp(AUTH_ROUTES, '/en-US/passport/signin');
    expect(field(screen.getByTestId('signin-password') as HTMLFormElement, 'account').value).toBe('');
  });
});
