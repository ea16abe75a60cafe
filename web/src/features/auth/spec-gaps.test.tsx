// Issue 19 part 2 on the sign-in screens, against a mocked API: "Please enable browser cookies"
// when storage is refused; the notice of the screen before, in the card (not a toast); the
// password reset starting with the account typed or picked; the lock's reset link.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as toast from '../../lib/toast';
import { fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import FindPassword from './find-password';
import SignIn from './signin';

afterEach(() => {
  vi.restoreAllMocks();
  resetApp();
});

const routes = [
  { path: '/:language/passport/signin', element: <SignIn /> },
  { path: '/:language/find/password', element: <FindPassword /> },
];
const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;

describe('cookies and site data blocked', () => {
  it.each([
    ['en-US', 'Please enable browser cookies'],
    ['zh-CN', '请启用浏览器 Cookie'],
  ] as const)('%s: said before anything is typed; the form is not sent', async (locale, text) => {
    const api = fakeApi({}, NOT_FOUND);
    vi.spyOn(window, 'localStorage', 'get').mockImplementation(() => {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    });
    await renderApp(routes, `/${locale}/passport/signin`, { locale });
    expect(screen.getByTestId('cookies-disabled').textContent).toBe(text);
    expect(screen.getByTestId('cookies-disabled').getAttribute('role')).toBe('alert');
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    expect((f.querySelector('button[type="submit"]') as HTMLButtonElement).disabled).toBe(true);
    expect(api.callsTo('POST', '/auth/login/password')).toEqual([]);
  });

  it('with storage, nothing is said', async () => {
    fakeApi({}, NOT_FOUND);
    await renderApp(routes, '/en-US/passport/signin');
    expect(screen.queryByTestId('cookies-disabled')).toBeNull();
  });
});

describe('the sign-in card', () => {
  it('says what the screen before said (router state), not in a toast', async () => {
    fakeApi({}, NOT_FOUND);
    const router = await renderApp(routes, '/en-US/find/password');
    router.navigate('/en-US/passport/signin', { state: { account: 'ann@example.com', notice: 'registered' } });
    await settle();
    expect(screen.getByTestId('signin-notice').textContent).toBe('Your account has been created. Please sign in.');
    expect(toast.current()).toEqual([]);
  });

  it('ignores a notice it does not know', async () => {
    fakeApi({}, NOT_FOUND);
    const router = await renderApp(routes, '/en-US/find/password');
    router.navigate('/en-US/passport/signin', { state: { notice: '<b>hi</b>' } });
    await settle();
    expect(screen.queryByTestId('signin-notice')).toBeNull();
  });

  it('"Forgot password?" starts the reset with the account typed', async () => {
    fakeApi({}, NOT_FOUND);
    await renderApp(routes, '/en-US/passport/signin');
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    fireEvent.change(input(f, 'account'), { target: { value: ' ann@example.com ' } });
    fireEvent.click(screen.getByTestId('link-find-password'));
    await settle();
    expect(input(screen.getByTestId('find-password') as HTMLFormElement, 'account').value).toBe('ann@example.com');
  });

  it('and with the account picked from "choose account"', async () => {
    localStorage.setItem('ciam_accounts', JSON.stringify([{ account: '13800138000', lastUsed: Date.now() }]));
    fakeApi({}, NOT_FOUND);
    await renderApp(routes, '/zh-CN/passport/signin', { locale: 'zh-CN' });
    fireEvent.click(screen.getByText('138****8000'));
    await settle();
    fireEvent.click(screen.getByTestId('link-find-password'));
    await settle();
    expect(input(screen.getByTestId('find-password') as HTMLFormElement, 'account').value).toBe('13800138000');
  });

  it("the lock's reset link starts the reset with the account", async () => {
    const until = Math.floor(Date.now() / 1000) + 900;
    fakeApi({ 'POST /auth/login/password': () => [423, { reason: 'VERIFICATION_ATTEMPT_CODE_LIMIT', message: String(until), code: 423 }] }, NOT_FOUND);
    await renderApp(routes, '/en-US/passport/signin');
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    fireEvent.change(input(f, 'account'), { target: { value: 'ann@example.com' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'Wrong-1!' } });
    fireEvent.submit(f);
    await settle();
    // The lock said once, and its wait once, by the clock (issue 34 item 7).
    expect(screen.getByTestId('form-alert').textContent).toMatch(/^Your account has been locked\. Please try it in 1[45]:\d\d\./);
    fireEvent.click(screen.getByTestId('lock-reset'));
    await settle();
    expect(input(screen.getByTestId('find-password') as HTMLFormElement, 'account').value).toBe('ann@example.com');
  });
});
