// /signout and /{lang}/logout: the session ends on the server and here; deactivation.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as toast from '../../lib/toast';
import { type Answer, fakeApi, type FakeApi, SIGNED_OUT } from '../../testing/fake-api';
import { renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import Logout from './logout';
import SignOut from './signout';
import { BASE } from '../../lib/api-url';

let fetchMock: FakeApi['fetch'];
let answers: Record<string, Answer>;

const INFO = { userId: 'u1', userName: 'ann', enableTotp: false, isEiamUser: false };

function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp(
    [
      { path: '/signout', element: <SignOut /> },
      { path: '/:language/logout', element: <Logout /> },
      { path: '/:language/passport/signin', element: <p>sign-in page</p> },
    ],
    path,
    { locale },
  );
}

type Init = RequestInit & { method?: string };
const callsTo = (method: string, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => url === `${BASE}${path}` && ((init as Init)?.method ?? 'GET') === method) as [string, Init][];
const bodyOf = (call: [string, Init] | undefined) => JSON.parse(String(call?.[1].body));
const errorOf = (el: HTMLElement) => document.getElementById((el.getAttribute('aria-describedby') ?? '').split(' ').pop() ?? '')?.textContent;

beforeEach(() => {
  // Anything not answered here: the session is gone.
  ({ answers, fetch: fetchMock } = fakeApi({ 'GET /auth/info': () => [200, INFO] }, SIGNED_OUT));
});
afterEach(resetApp);

describe('/signout', () => {
  it('revokes the session with its token, clears it, and says so even when the server refuses', async () => {
    signIn();
    localStorage.setItem('umi_locale', 'zh-CN');
    const router = await show('/signout', 'zh-CN');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`${BASE}/auth/logout`);
    expect(new Headers((fetchMock.mock.calls[0]?.[1] as Init).headers).get('authorization')).toBe('Bearer u1.token');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(localStorage.getItem('lastActionTime')).toBeNull();
    expect(localStorage.getItem('umi_locale')).toBe('zh-CN');
    expect(screen.getByTestId('signed-out').textContent).toBe('您已退出登录');
    expect(screen.getByRole('link').getAttribute('href')).toBe('/zh-CN/passport/signin');
    expect(router.state.location.pathname).toBe('/signout');
  });

  it('makes no call without a session', async () => {
    await show('/signout');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.getByTestId('signed-out').textContent).toBe('You have signed out');
  });
});

describe('/{lang}/logout', () => {
  it('logs out of this browser and goes to sign-in', async () => {
    signIn();
    answers['POST /auth/logout'] = () => [200, { ok: true }];
    const router = await show('/en-US/logout');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Deactivate account');
    fireEvent.click(screen.getByRole('button', { name: 'Log out of this browser' }));
    await settle();
    const [call] = callsTo('POST', '/auth/logout');
    expect(new Headers(call?.[1].headers).get('authorization')).toBe('Bearer u1.token');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/en-US/passport/signin');
  });

  it('offers sign-in instead of a log-out button without a session, and no deactivation form', async () => {
    await show('/en-US/logout');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.queryByRole('button')).toBeNull();
    expect(document.querySelector('form')).toBeNull();
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/en-US/passport/signin');
  });
});

describe('deactivation', () => {
  it('needs the password and the confirmation before calling the server', async () => {
    signIn();
    await show('/en-US/logout');
    const f = screen.getByTestId('deactivate') as HTMLFormElement;
    fireEvent.submit(f);
    await settle();
    const pw = f.elements.namedItem('password') as HTMLInputElement;
    expect(errorOf(pw)).toBe('Enter your current password');
    expect(document.activeElement).toBe(pw);
    fireEvent.change(pw, { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(f);
    await settle();
    const confirm = f.elements.namedItem('confirm') as HTMLInputElement;
    expect(confirm.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(confirm)).toBe('Please confirm that you understand');
    expect(callsTo('PATCH', '/auth/deactivation')).toEqual([]);
  });

  it('sends {password} only, ends the session and goes to sign-in', async () => {
    signIn();
    answers['PATCH /auth/deactivation'] = () => [200, { ok: true }];
    const router = await show('/en-US/logout');
    const f = screen.getByTestId('deactivate') as HTMLFormElement;
    fireEvent.change(f.elements.namedItem('password') as HTMLInputElement, { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.click(f.elements.namedItem('confirm') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/deactivation').map(bodyOf)).toEqual([{ password: 'Ciam-Demo-2026!' }]);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/en-US/passport/signin');
    // Said on the sign-in card (router state), not in a toast that outlives the screen.
    expect(router.state.location.state).toEqual({ notice: 'deactivated' });
    expect(toast.current()).toEqual([]);
  });

  it('forgets the deactivated account in "choose account" (by user name or masked mail), keeps the others', async () => {
    signIn();
    answers['GET /auth/info'] = () => [200, { ...INFO, mail: 'an*@example.com', phone: null }];
    answers['PATCH /auth/deactivation'] = () => [200, { ok: true }];
    const now = Date.now();
    localStorage.setItem(
      'ciam_accounts',
      JSON.stringify([
        { account: 'ann@example.com', lastUsed: now },
        { account: 'ANN', lastUsed: now - 1 },
        { account: 'bob@example.com', lastUsed: now - 2 },
      ]),
    );
    await show('/en-US/logout');
    const f = screen.getByTestId('deactivate') as HTMLFormElement;
    fireEvent.change(f.elements.namedItem('password') as HTMLInputElement, { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.click(f.elements.namedItem('confirm') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(JSON.parse(localStorage.getItem('ciam_accounts') ?? '[]').map((r: { account: string }) => r.account)).toEqual(['bob@example.com']);
  });

  it('asks for the authenticator code when two-factor is on and sends {code} only', async () => {
    signIn();
    answers['GET /auth/info'] = () => [200, { ...INFO, enableTotp: true }];
    answers['PATCH /auth/deactivation'] = () => [400, { reason: 'TOTP_VERIFY_FAILED', message: '', code: 400 }];
    await show('/zh-CN/logout', 'zh-CN');
    const f = screen.getByTestId('deactivate') as HTMLFormElement;
    expect(f.elements.namedItem('password')).toBeNull();
    const code = f.elements.namedItem('code') as HTMLInputElement;
    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.click(f.elements.namedItem('confirm') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/deactivation').map(bodyOf)).toEqual([{ code: '123456' }]);
    expect(errorOf(code)).toBeTruthy();
    expect(localStorage.getItem('ciam_token')).toBe('u1.token');
    expect(toast.current()).toEqual([]);
  });

  it('shows a wrong password at its field', async () => {
    signIn();
    answers['PATCH /auth/deactivation'] = () => [401, { reason: 'PASSWORD_ERROR', message: '', code: 401 }];
    await show('/en-US/logout');
    const f = screen.getByTestId('deactivate') as HTMLFormElement;
    const pw = f.elements.namedItem('password') as HTMLInputElement;
    fireEvent.change(pw, { target: { value: 'wrong-Pass-1!' } });
    fireEvent.click(f.elements.namedItem('confirm') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(errorOf(pw)).toBe('The password is not correct');
  });

  it('explains that a staff account cannot be deactivated, with no form', async () => {
    signIn();
    answers['GET /auth/info'] = () => [200, { ...INFO, isEiamUser: true }];
    await show('/en-US/logout');
    expect(screen.queryByTestId('deactivate')).toBeNull();
    expect(screen.getByTestId('deactivate-staff').textContent).toMatch(/cannot be deactivated here/);
  });
});
