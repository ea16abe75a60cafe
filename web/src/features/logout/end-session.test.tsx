// /{lang}/passport/end-session: OpenID Connect RP-Initiated Logout's page. It ends the session
// at once for a hint naming it, asks otherwise, follows only the redirect the server checked,
// and shows the server's refusal without leaving.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { leave } from '../../lib/partner';
import { fakeApi, type FakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle, signIn } from '../../testing/render-app';
import EndSession from './end-session';

vi.mock('../../lib/partner', async (original) => ({ ...(await original<typeof import('../../lib/partner')>()), leave: vi.fn(() => true) }));
const left = vi.mocked(leave);

const BYE = 'https://factory.example.com/bye';
const QUERY = `?id_token_hint=H.I.NT&post_logout_redirect_uri=${encodeURIComponent(BYE)}&state=s1`;
const CONTEXT_PATH = `GET /oidc/end-session?id_token_hint=H.I.NT&post_logout_redirect_uri=${encodeURIComponent(BYE)}&state=s1`;
const CTX = { appName: 'Factory', redirect: `${BYE}?state=s1`, hint: true };

let fake: FakeApi;

function show(search: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp([{ path: '/:language/passport/end-session', element: <EndSession /> }], `/${locale}/passport/end-session${search}`, { locale });
}

beforeEach(() => {
  left.mockClear();
  fake = fakeApi({ [CONTEXT_PATH]: () => [200, CTX] });
});
afterEach(resetApp);

describe('end-session', () => {
  it('ends the session a hint names at once and follows the checked redirect', async () => {
    signIn();
    fake.answers['POST /oidc/end-session'] = () => [200, { ended: true, redirect: CTX.redirect }];
    await show(QUERY);
    await settle();
    const [call] = fake.callsTo('POST', '/oidc/end-session');
    expect(call?.body).toEqual({ idTokenHint: 'H.I.NT', postLogoutRedirectUri: BYE, state: 's1', confirmed: false });
    expect(call?.auth).toBe('Bearer u1.token');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(left.mock.calls).toEqual([[CTX.redirect]]);
    expect(screen.getByTestId('end-session-busy').textContent).toBe('You have signed out. Taking you back to Factory…');
  });

  it('asks first without a hint for this session (in Chinese too), and signs out on the button', async () => {
    signIn();
    fake.answers['POST /oidc/end-session'] = () => {
      const last = fake.calls.at(-1)?.body as { confirmed: boolean };
      return last.confirmed ? [200, { ended: true, redirect: CTX.redirect }] : [200, { ended: false, redirect: null }];
    };
    await show(QUERY, 'zh-CN');
    await settle();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('退出 Ciam 登录？');
    expect(screen.getByTestId('end-session-ask').textContent).toContain('Factory 请求在此浏览器上退出您的 Ciam 登录。');
    expect(localStorage.getItem('ciam_token')).not.toBeNull();
    expect(left).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('end-session-confirm'));
    await settle();
    expect(fake.callsTo('POST', '/oidc/end-session').map((c) => (c.body as { confirmed: boolean }).confirmed)).toEqual([false, true]);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(left.mock.calls).toEqual([[CTX.redirect]]);
  });

  it('shows the refusal of an unregistered redirect and never leaves', async () => {
    signIn();
    fake.answers[CONTEXT_PATH] = () => [400, { reason: 'INVALID_PARAMETER', message: 'post_logout_redirect_uri must be exactly one of the app\'s registered postLogoutRedirectUris', code: 400, field: 'post_logout_redirect_uri' }];
    await show(QUERY);
    await settle();
    expect(screen.getByTestId('end-session-error').textContent).toContain('This sign-out request cannot be used');
    expect(fake.callsTo('POST', '/oidc/end-session')).toEqual([]);
    expect(localStorage.getItem('ciam_token')).not.toBeNull();
    expect(left).not.toHaveBeenCalled();
  });

  it('signed out already: nothing to end, straight back to the app', async () => {
    await show(QUERY);
    await settle();
    expect(fake.callsTo('POST', '/oidc/end-session')).toEqual([]);
    expect(left.mock.calls).toEqual([[CTX.redirect]]);
  });

  it('without a redirect says so and offers to sign in again', async () => {
    signIn();
    fake.answers['GET /oidc/end-session'] = () => [200, { appName: null, redirect: null, hint: false }];
    fake.answers['POST /oidc/end-session'] = () =>
      (fake.calls.at(-1)?.body as { confirmed: boolean }).confirmed ? [200, { ended: true, redirect: null }] : [200, { ended: false, redirect: null }];
    await show('');
    await settle();
    // No hint: asked first.
    expect(screen.getByTestId('end-session-ask').textContent).toContain('An application asks to sign you out of Ciam on this browser.');
    fireEvent.click(screen.getByTestId('end-session-confirm'));
    await settle();
    expect(screen.getByTestId('signed-out').textContent).toBe('You have signed out');
    expect(screen.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe('/en-US/passport/signin');
    expect(left).not.toHaveBeenCalled();
  });
});
