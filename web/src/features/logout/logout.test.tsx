// /signout and /{lang}/logout: the session ends on the server and here.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createIntl, createIntlCache, type MessageFormatElement, RawIntlProvider } from 'react-intl';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en as en, zh as zh } from '../../testing/messages';
import Logout from './logout';
import SignOut from './signout';

let fetchMock: ReturnType<typeof vi.fn>;

async function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  const router = createMemoryRouter(
    [
      { path: '/signout', element: <SignOut /> },
      { path: '/:language/logout', element: <Logout /> },
      { path: '/:language/passport/signin', element: <p>sign-in page</p> },
    ],
    { initialEntries: [path] },
  );
  const messages = (locale === 'en-US' ? en : zh) as unknown as Record<string, MessageFormatElement[]>;
  const intl = createIntl({ locale, messages, onError: () => {} }, createIntlCache());
  render(
    <RawIntlProvider value={intl}>
      <RouterProvider router={router} />
    </RawIntlProvider>,
  );
  await act(async () => new Promise((r) => setTimeout(r, 10)));
  return router;
}

const signIn = () => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
};
const authOf = (call: unknown[]) => new Headers((call[1] as RequestInit).headers).get('authorization');

beforeEach(() => {
  fetchMock = vi.fn(async () => new Response('{"reason":"AUTHORIZATION_FAILED","message":"","code":401}', { status: 401 }));
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('/signout', () => {
  it('revokes the session with its token, clears it, and says so even when the server refuses', async () => {
    signIn();
    localStorage.setItem('umi_locale', 'zh-CN');
    const router = await show('/signout', 'zh-CN');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/ciam/v1/auth/logout');
    expect(authOf(fetchMock.mock.calls[0] ?? [])).toBe('Bearer u1.token');
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
    const router = await show('/en-US/logout');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Deactivate account');
    fireEvent.click(screen.getByRole('button', { name: 'Log out of this browser' }));
    await act(async () => new Promise((r) => setTimeout(r, 10)));
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/ciam/v1/auth/logout');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/en-US/passport/signin');
  });

  it('offers sign-in instead of a log-out button without a session, and no deactivation form', async () => {
    await show('/en-US/logout');
    expect(screen.queryByRole('button')).toBeNull();
    expect(document.querySelector('form')).toBeNull();
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/en-US/passport/signin');
  });
});
