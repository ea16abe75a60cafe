// Issue 12 §2, the forms that help: autofill values that make password managers save the mail or
// phone with the password.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp } from '../../testing/render-app';
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
