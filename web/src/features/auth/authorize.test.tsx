// The consent screen and the way back to it after sign-in, against a mocked API: what is asked,
// what is shown, and where the browser is sent (only where the server said).
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MfaHost } from '../../components/mfa-host';
import * as mfa from '../../lib/mfa';
import { leave } from '../../lib/partner';
import { hasReason } from '../../lib/reasons';
import * as toast from '../../lib/toast';
import Authorize from './authorize';
import SignIn from './signin';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp, settle } from '../../testing/render-app';

vi.mock('../../lib/partner', async (original) => ({ ...(await original<typeof import('../../lib/partner')>()), leave: vi.fn(() => true) }));
const left = vi.mocked(leave);

let calls: Call[] = [];
let answers: Record<string, Answer> = {};
const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

const SERVICE = 'https://app.example.com/cb';
const Q = `?appId=a1&serviceUrl=${SERVICE}`;
const CONTEXT_PATH = `/auth/consent?appId=a1&serviceUrl=${encodeURIComponent(SERVICE)}`;
const CTX = {
  appId: 'a1', name: 'Factory Portal', logo: 'https://cdn.example.com/logo.png', scopes: ['email', 'avatar', 'unknown', 'nickname'],
  granted: false, serviceUrl: SERVICE, cancelUrl: `${SERVICE}?cError=access_denied`,
};
const ISSUED = { cTicket: 'CT-1', redirect: `${SERVICE}?cTicket=CT-1` };

function mockFetch() {
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
}

function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp(
    [
      { path: '/:language/passport/authorize', element: <Authorize /> },
      { path: '/:language/passport/signin', element: <><SignIn /><MfaHost /></> },
      { path: '/:language/personal/info', element: <p>personal centre</p> },
    ],
    path,
    { locale, onNeedTotp: (c) => mfa.open(c) },
  );
}

const at = (router: Awaited<ReturnType<typeof show>>) => router.state.location.pathname + router.state.location.search;
const signedIn = () => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
};
const button = (id: string) => screen.getByTestId(id) as HTMLButtonElement;

beforeEach(() => {
  answers = {
    [`GET ${CONTEXT_PATH}`]: () => [200, CTX],
    'POST /auth/login/token': () => [200, ISSUED],
    'GET /oidc/requests/r%201': () => [200, { ...CTX, cancelUrl: `${SERVICE}?error=access_denied&state=s1` }],
    'POST /oidc/requests/r%201': () => [200, { redirect: `${SERVICE}?code=C1&state=s1` }],
    'POST /auth/login/password': () => [200, { token: 'u1.new' }],
  };
  mockFetch();
  left.mockClear();
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('the consent screen', () => {
  it('sends a signed-out visitor to sign-in with the whole query, and asks the server nothing', async () => {
    const router = await show(`/en-US/passport/authorize${Q}`);
    expect(at(router)).toBe(`/en-US/passport/signin${Q}`);
    expect(calls.filter((c) => c.path.startsWith('/auth/consent'))).toHaveLength(0);
  });

  it('shows the app, its logo and the scopes it asks for in words, and waits for the user', async () => {
    signedIn();
    await show(`/en-US/passport/authorize${Q}`);
    expect(callsTo('GET', CONTEXT_PATH)).toHaveLength(1);
    expect(screen.getByTestId('authorize-app').textContent).toBe('Factory Portal');
    const logo = screen.getByRole('img') as HTMLImageElement;
    expect(logo.src).toBe(CTX.logo);
    expect(logo.alt).toBe('Logo of Factory Portal');
    const items = [...screen.getByTestId('authorize-scopes').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual(['Your avatar', 'Your display name', 'Your e-mail address']);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(0);
    expect(left).not.toHaveBeenCalled();
  });

  it('is titled for what it asks, heading and document title (issue 34 item 7)', async () => {
    signedIn();
    await show(`/en-US/passport/authorize${Q}`);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Allow Factory Portal to use your account');
    await waitFor(() => expect(document.title).toBe('Allow Factory Portal to use your account'));
    expect(document.title).not.toMatch(/Account Authentication/);
  });

  it('speaks Chinese in zh-CN', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, scopes: ['company', 'phone'] }];
    await show(`/zh-CN/passport/authorize${Q}`, 'zh-CN');
    const items = [...screen.getByTestId('authorize-scopes').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual(['您的公司名称', '您的手机号']);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('授权 Factory Portal 使用您的账号');
    await waitFor(() => expect(document.title).toBe('授权 Factory Portal 使用您的账号'));
    expect(button('authorize-allow').textContent).toBe('允许');
    expect(button('authorize-cancel').textContent).toBe('取消');
  });

  it('Allow asks for a ticket for this app and serviceUrl, then follows the answer', async () => {
    signedIn();
    let release: () => void = () => {};
    answers['POST /auth/login/token'] = () => [200, ISSUED];
    const gate = new Promise<void>((r) => (release = r));
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === 'POST') await gate;
      return realFetch(url, init);
    }));
    await show(`/en-US/passport/authorize${Q}`);
    fireEvent.click(button('authorize-allow'));
    await settle();
    expect(button('authorize-allow').disabled).toBe(true);
    expect(button('authorize-cancel').disabled).toBe(true);
    expect(button('authorize-allow').getAttribute('aria-busy')).toBe('true');
    release();
    await settle();
    expect(callsTo('POST', '/auth/login/token').map((c) => c.body)).toEqual([{ appId: 'a1', serviceUrl: SERVICE, scopes: CTX.scopes }]);
    expect(left.mock.calls).toEqual([[ISSUED.redirect]]);
  });

  it('shows the new scopes when the app changed them while the screen was open, and Allow sends those', async () => {
    signedIn();
    const changed = { ...CTX, scopes: ['email', 'phone'] };
    let contexts = 0;
    answers[`GET ${CONTEXT_PATH}`] = () => [200, contexts++ ? changed : CTX];
    answers['POST /auth/login/token'] = () =>
      callsTo('POST', '/auth/login/token').length === 1
        ? [400, { reason: 'INVALID_PARAMETER', message: 'scopes changed', code: 400, field: 'scopes' }]
        : [200, ISSUED];
    await show(`/en-US/passport/authorize${Q}`);
    fireEvent.click(button('authorize-allow'));
    await settle();
    expect(callsTo('GET', CONTEXT_PATH)).toHaveLength(2);
    expect(left).not.toHaveBeenCalled();
    expect(screen.queryByTestId('authorize-error')).toBeNull();
    const items = [...screen.getByTestId('authorize-scopes').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual(['Your phone number', 'Your e-mail address']);
    fireEvent.click(button('authorize-allow'));
    await settle();
    expect(callsTo('POST', '/auth/login/token').map((c) => (c.body as { scopes: string[] }).scopes)).toEqual([CTX.scopes, changed.scopes]);
    expect(left.mock.calls).toEqual([[ISSUED.redirect]]);
  });

  it('reloads the context only once when the scopes keep changing', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    answers['POST /auth/login/token'] = () => [400, { reason: 'INVALID_PARAMETER', message: 'scopes changed', code: 400, field: 'scopes' }];
    await show(`/en-US/passport/authorize${Q}`);
    expect(callsTo('GET', CONTEXT_PATH)).toHaveLength(2);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(2);
    expect(screen.getByTestId('authorize-error').textContent).toContain('scopes changed');
    expect(left).not.toHaveBeenCalled();
  });

  it('goes straight on when the user already allowed the app: no screen, one ticket', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    await show(`/en-US/passport/authorize${Q}`);
    expect(screen.queryByTestId('authorize-allow')).toBeNull();
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(1);
    expect(left.mock.calls).toEqual([[ISSUED.redirect]]);
    expect(screen.getByTestId('authorize-busy').textContent).toContain('Factory Portal');
  });

  it('Cancel goes to the cancelUrl the server made, and asks for no ticket', async () => {
    signedIn();
    await show(`/en-US/passport/authorize${Q}`);
    fireEvent.click(button('authorize-cancel'));
    await settle();
    expect(left.mock.calls).toEqual([[CTX.cancelUrl]]);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(0);
  });

  it.each([
    ['an unknown app', [404, { reason: 'APPID_NOT_FOUND', message: 'no such app', code: 404 }]],
    ['an unregistered serviceUrl', [400, { reason: 'INVALID_PARAMETER', message: 'serviceUrl is not registered for this app', code: 400, field: 'serviceUrl' }]],
  ] as const)('shows the error for %s with a link to the personal centre, and never leaves', async (_, answer) => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [answer[0], answer[1]];
    const router = await show(`/en-US/passport/authorize${Q}`);
    const box = screen.getByTestId('authorize-error');
    expect(box.querySelector('[role="alert"]')?.textContent).toContain('The application cannot be authorized');
    if (hasReason(answer[1], 'INVALID_PARAMETER')) expect(box.textContent).toContain('serviceUrl is not registered for this app');
    expect(screen.getByTestId('authorize-personal').getAttribute('href')).toBe('/en-US/personal/info');
    expect(screen.queryByTestId('authorize-allow')).toBeNull();
    expect(left).not.toHaveBeenCalled();
    expect(toast.current()).toHaveLength(0);
    expect(at(router)).toBe(`/en-US/passport/authorize${Q}`);
  });

  it('shows a refused ticket on the screen and stays', async () => {
    signedIn();
    answers['POST /auth/login/token'] = () => [404, { reason: 'APPID_NOT_FOUND', message: '', code: 404 }];
    await show(`/en-US/passport/authorize${Q}`);
    fireEvent.click(button('authorize-allow'));
    await settle();
    expect(screen.getByTestId('authorize-error')).toBeTruthy();
    expect(left).not.toHaveBeenCalled();
  });

  it('sends a lost session to sign-in without the serviceUrl (spec §8)', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }];
    // lib/api reads the browser's own location (a memory router does not move it).
    window.history.replaceState(null, '', `/en-US/passport/authorize${Q}`);
    try {
      const router = await show(`/en-US/passport/authorize${Q}`);
      expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
      expect(localStorage.getItem('ciam_token')).toBeNull();
    } finally {
      window.history.replaceState(null, '', '/');
    }
  });

  it('draws no logo that is not an http(s) URL', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, logo: 'javascript:alert(1)' }];
    await show(`/en-US/passport/authorize${Q}`);
    expect(screen.queryByRole('img')).toBeNull();
  });

  it('says the app only learns who the user is when it asks for no scope', async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, scopes: [] }];
    await show(`/en-US/passport/authorize${Q}`);
    expect(screen.queryByTestId('authorize-scopes')).toBeNull();
    expect(screen.getByTestId('authorize').textContent).toContain('would like to know who you are');
  });

  it('serves an OpenID Connect request through its own endpoints', async () => {
    signedIn();
    await show('/en-US/passport/authorize?oidcRequest=r%201');
    expect(callsTo('GET', '/oidc/requests/r%201')).toHaveLength(1);
    fireEvent.click(button('authorize-allow'));
    await settle();
    expect(callsTo('POST', '/oidc/requests/r%201')).toHaveLength(1);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(0);
    expect(left.mock.calls).toEqual([[`${SERVICE}?code=C1&state=s1`]]);
  });

  it('explains a link that names no app, signed in or not', async () => {
    await show('/en-US/passport/authorize?appId=a1');
    expect(screen.getByTestId('authorize-error').textContent).toContain('does not say which application');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Allow an application to use your account');
    expect(calls).toHaveLength(0);
  });
});

describe('signing in from a partner', () => {
  const signInWithPassword = async () => {
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    fireEvent.change(f.elements.namedItem('account') as HTMLInputElement, { target: { value: 'ann@example.com' } });
    fireEvent.change(f.elements.namedItem('password') as HTMLInputElement, { target: { value: 'Secret-2026!' } });
    fireEvent.submit(f);
    await settle();
  };

  it('comes back to the consent screen with the query', async () => {
    const router = await show(`/en-US/passport/authorize${Q}`);
    await signInWithPassword();
    expect(localStorage.getItem('ciam_token')).toBe('u1.new');
    expect(at(router)).toBe(`/en-US/passport/authorize${Q}`);
    expect(screen.getByTestId('authorize-app').textContent).toBe('Factory Portal');
  });

  it('keeps the query on the links to sign-up and find password', async () => {
    await show(`/en-US/passport/signin${Q}`);
    expect(screen.getByTestId('link-register').getAttribute('href')).toBe(`/en-US/passport/register${Q}`);
    expect(screen.getByTestId('link-find-password').getAttribute('href')).toBe(`/en-US/find/password${Q}`);
  });

  it('comes back to the consent screen after the two-factor step', async () => {
    answers['POST /auth/login/password'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch1' }];
    answers['POST /auth/login/totp'] = () => [200, { token: 'u1.totp' }];
    // The modal reads the browser's own location (a memory router does not move it).
    window.history.replaceState(null, '', `/en-US/passport/signin${Q}`);
    try {
      const router = await show(`/en-US/passport/signin${Q}`);
      await signInWithPassword();
      const code = screen.getByLabelText('6-digit code from your authenticator app');
      fireEvent.change(code, { target: { value: '123456' } });
      fireEvent.submit(code.closest('form') as HTMLFormElement);
      await settle();
      expect(callsTo('POST', '/auth/login/totp').map((c) => c.body)).toEqual([{ challenge: 'ch1', code: '123456' }]);
      expect(localStorage.getItem('ciam_token')).toBe('u1.totp');
      expect(at(router)).toBe(`/en-US/passport/authorize${Q}`);
    } finally {
      window.history.replaceState(null, '', '/');
      mfa.close();
    }
  });

  it('goes to the personal centre when no partner sent the user', async () => {
    const router = await show('/en-US/passport/signin');
    await signInWithPassword();
    expect(at(router)).toBe('/en-US/personal/info');
  });
});

describe("who is signed in, and the app's privacy policy (issue 23)", () => {
  it('says who is signed in (as the server masks it); "not you?" signs out and goes to sign-in with the same request', async () => {
    signedIn();
    answers['GET /auth/info'] = () => [200, { userId: 'u1', userName: 'ann', mail: 'an***@example.com', phone: null }];
    answers['POST /auth/logout'] = () => [200, {}];
    mockFetch();
    const router = await show(`/en-US/passport/authorize${Q}`);
    expect(screen.getByTestId('authorize-who').textContent).toBe('Signed in as an***@example.com Not you? Use another account');
    fireEvent.click(button('authorize-switch'));
    await settle();
    expect(callsTo('POST', '/auth/logout').map((c) => c.auth)).toEqual(['Bearer u1.token']);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(at(router)).toBe(`/en-US/passport/signin${Q}`);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(0);
  });

  it("links the app's privacy policy (a new window) when registered, and shows no link otherwise", async () => {
    signedIn();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, privacyUrl: 'https://app.example.com/privacy' }];
    mockFetch();
    await show(`/zh-CN/passport/authorize${Q}`, 'zh-CN');
    const link = screen.getByTestId('authorize-privacy') as HTMLAnchorElement;
    expect([link.href, link.target, link.textContent]).toEqual(['https://app.example.com/privacy', '_blank', 'Factory Portal 的《隐私政策》（在新窗口打开）']);
    expect(link.rel).toContain('noopener');
    cleanup();
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, privacyUrl: '' }];
    mockFetch();
    await show(`/en-US/passport/authorize${Q}`);
    expect(screen.getByTestId('authorize')).toBeTruthy();
    expect(screen.queryByTestId('authorize-privacy')).toBeNull();
  });
});
