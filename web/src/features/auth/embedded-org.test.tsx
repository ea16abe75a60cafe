// The company's own sign-in in a partner's frame (embedded-signin.tsx with org-signin.tsx), against
// a mocked API: a routed, required mail is offered its company (the password gives way); the button
// opens the company's sign-in in a popup, never navigating the frame; the way back handed over by
// the popup (only Ciam's own page in the popup this frame opened) is redeemed with the frame's
// bind and goes on as after a password (the ticket posted); a refusal on the way back and a
// password refused with ORG_SIGN_IN_REQUIRED are said in their own words, in both languages, and
// posted to the host; the popup's side (the sign-in page) hands over and redeems nothing.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import * as mfa from '../../lib/mfa';
import * as toast from '../../lib/toast';
import { MfaHost } from '../../components/mfa-host';
import EmbeddedSignIn from './embedded-signin';
import SignIn from './signin';
import { forget, POPUP } from './org-signin';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp, settle } from '../../testing/render-app';
import { BASE } from '../../lib/api-url';

let calls: Call[] = [];
let answers: Record<string, Answer> = {};
let post: Mock<(msg: unknown, origin: string) => void>;
const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

const ORIGIN = 'https://host.example.com';
const SERVICE = `${ORIGIN}/cb`;
const PATH = `/en-US/embedded/signin?appId=a1&validateMsg=notice&serviceUrl=${SERVICE}`;
const CONTEXT_PATH = `/auth/consent?appId=a1&serviceUrl=${encodeURIComponent(SERVICE)}`;
const CTX = { appId: 'a1', name: 'Factory Portal', logo: '', scopes: ['email'], granted: true, serviceUrl: SERVICE, cancelUrl: `${SERVICE}?cError=access_denied` };
const ACME = { connection: { id: 'conn_0123456789abcdef', name: { 'zh-CN': '艾克姆', 'en-US': 'Acme' }, protocol: 'oidc' }, required: true };

async function show(path = PATH, locale: 'en-US' | 'zh-CN' = 'en-US') {
  window.history.replaceState(null, '', path);
  const element = (
    <>
      <EmbeddedSignIn />
      <MfaHost />
    </>
  );
  await renderApp([{ path: '/:language/embedded/signin', element }], path, { locale, onNeedTotp: (c) => mfa.open(c) });
}

const form = () => screen.getByTestId('signin-password') as HTMLFormElement;
const field = (name: string) => form().elements.namedItem(name) as HTMLInputElement;
const type = (value: string) => fireEvent.change(field('account'), { target: { value } });

/** A message event as the browser delivers it (jsdom's MessageEvent takes no fake window as source). */
function deliver(source: unknown, data: unknown, origin = window.location.origin) {
  const e = new Event('message');
  Object.defineProperties(e, { source: { value: source }, data: { value: data }, origin: { value: origin } });
  window.dispatchEvent(e);
}

const sha256 = async (s: string) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)))))
    .replace(/=+$/, '')
    .replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));

beforeEach(() => {
  forget();
  answers = {
    'POST /auth/org/discover': () => [200, ACME],
    [`GET ${CONTEXT_PATH}`]: () => [200, CTX],
    'POST /auth/login/token': () => [200, { cTicket: 'CT-1', redirect: `${SERVICE}?cTicket=CT-1` }],
    'POST /auth/login/federation': () => [200, { token: 'u1.org' }],
    'GET /auth/federation': () => [200, { providers: [] }],
  };
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
  post = vi.fn();
  Object.defineProperty(window, 'parent', { configurable: true, value: { postMessage: post } });
  Object.defineProperty(document, 'referrer', { configurable: true, value: `${ORIGIN}/` });
});
afterEach(() => {
  cleanup();
  mfa.close();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Object.defineProperty(window, 'parent', { configurable: true, value: window });
  Object.defineProperty(document, 'referrer', { configurable: true, value: '' });
  localStorage.clear();
  sessionStorage.clear();
});

describe('the company sign-in in the frame', () => {
  it('opens in a popup, comes back through it, and goes on as after a password', async () => {
    const popup = { location: { href: '' } };
    const open = vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    await show();
    type('ann@acme.example');
    const button = await screen.findByTestId('org-continue', {}, { timeout: 8000 });
    expect(button.textContent).toBe('Continue with Acme (opens a new window)');
    expect(screen.getByTestId('org-required').textContent).toBe('Acme asks you to sign in with its own account.');
    expect(screen.getByTestId('embedded-signin').classList.contains('org-only'), 'the password gives way').toBe(true);

    fireEvent.click(button);
    await settle();
    // A popup of Ciam's own, opened on the press; the frame itself never leaves.
    expect(open).toHaveBeenCalledWith('about:blank', POPUP, expect.stringContaining('popup'));
    const start = new URL(popup.location.href, window.location.origin);
    expect(`${start.origin}${start.pathname}`).toBe(new URL(`${BASE}/auth/org/start`, window.location.origin).href);
    expect(start.searchParams.get('connection')).toBe(ACME.connection.id);
    expect(start.searchParams.get('lang')).toBe('en-US');
    // The way back says it is the frame's (before serviceUrl, which ends a query).
    expect(start.searchParams.get('query')).toBe(`orgFrame=1&appId=a1&validateMsg=notice&serviceUrl=${SERVICE}`);
    const hash = start.searchParams.get('bindHash')!;
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionStorage.length, 'the framed bind is kept in memory only').toBe(0);
    expect(screen.getByTestId('org-frame-status').textContent).toBe('Sign in with Acme in the window that opened.');

    // Anything but Ciam's own page in that popup is not heard.
    deliver({}, { type: 'ciam:org-back', kind: 'Code', value: 'c-other' });
    deliver(popup, { type: 'ciam:org-back', kind: 'Code', value: 'c-other' }, ORIGIN);
    await settle();
    expect(callsTo('POST', '/auth/login/federation')).toHaveLength(0);

    deliver(popup, { type: 'ciam:org-back', kind: 'Code', value: 'c1' });
    await settle();
    const redeemed = callsTo('POST', '/auth/login/federation');
    expect(redeemed).toHaveLength(1);
    const body = redeemed[0]!.body as { provider: string; code: string; bind: string };
    expect(body.provider).toBe('org');
    expect(body.code).toBe('c1');
    expect(await sha256(body.bind), 'redeemed with the bind whose hash went to the start').toBe(hash);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(screen.getByTestId('embedded-done')).toBeTruthy();
  });

  it('a company sign-in that needs the second step gets it in the frame, then the ticket', async () => {
    const popup = { location: { href: '' } };
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    answers['POST /auth/login/federation'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch-1' }];
    answers['POST /auth/login/totp'] = () => [200, { token: 'u1.totp' }];
    await show();
    type('ann@acme.example');
    fireEvent.click(await screen.findByTestId('org-continue', {}, { timeout: 8000 }));
    await settle();
    deliver(popup, { type: 'ciam:org-back', kind: 'Code', value: 'c1' });
    await settle();
    const code = screen.getByTestId('mfa-code') as HTMLInputElement;
    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.submit(code.form!);
    await settle();
    expect(callsTo('POST', '/auth/login/totp').map((c) => c.body)).toEqual([{ challenge: 'ch-1', code: '123456' }]);
    expect(post.mock.calls, 'NEED_TOTP_VERIFY is never posted').toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
  });

  it.each([
    ['en-US', 'You cancelled at Acme. Try again or choose another way.'],
    ['zh-CN', '你在艾克姆取消了登录。请重试或选择其他方式。'],
  ] as const)('a refusal on the way back is said in the frame and posted (%s)', async (locale, text) => {
    const popup = { location: { href: '' } };
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    await show(PATH.replace('/en-US/', `/${locale}/`), locale);
    type('ann@acme.example');
    fireEvent.click(await screen.findByTestId('org-continue', {}, { timeout: 8000 }));
    await settle();
    deliver(popup, { type: 'ciam:org-back', kind: 'Error', value: 'FEDERATION_CANCELLED' });
    await settle();
    expect(screen.getByTestId('org-frame-error').textContent).toBe(text);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:error', reason: 'FEDERATION_CANCELLED', errMsg: text }, ORIGIN]]);
    expect(callsTo('POST', '/auth/login/federation')).toHaveLength(0);
  });

  it('says so when the browser blocks the popup', async () => {
    vi.spyOn(window, 'open').mockReturnValue(null);
    await show();
    type('ann@acme.example');
    fireEvent.click(await screen.findByTestId('org-continue', {}, { timeout: 8000 }));
    await settle();
    expect(screen.getByTestId('org-frame-error').textContent).toBe('The browser blocked the sign-in window. Allow pop-ups for this site, then press the button again.');
  });

  it.each([
    ['en-US', 'Your company asks you to sign in with its own account.'],
    ['zh-CN', '你的公司要求使用公司账号登录。'],
  ] as const)('a password refused with ORG_SIGN_IN_REQUIRED is said in its own words, with the button (%s)', async (locale, text) => {
    // The answer of discover comes too late to hide the password: the server refuses it.
    answers['POST /auth/org/discover'] = () => [200, { ...ACME, required: false }];
    answers['POST /auth/login/password'] = () => [403, { reason: 'ORG_SIGN_IN_REQUIRED', message: '', code: 403, connection: ACME.connection.id }];
    await show(PATH.replace('/en-US/', `/${locale}/`), locale);
    type('ann@acme.example');
    fireEvent.change(field('password'), { target: { value: 'Secret-2026!' } });
    fireEvent.submit(form());
    const refused = await screen.findByTestId('org-refused', {}, { timeout: 8000 });
    expect(refused.textContent).toBe(text);
    expect(refused.getAttribute('role')).toBe('alert');
    expect(await screen.findByTestId('org-continue', {}, { timeout: 8000 })).toBeTruthy();
    expect(screen.getByTestId('embedded-signin').classList.contains('org-only')).toBe(true);
    await settle();
    expect(post.mock.calls).toEqual([[{ type: 'ciam:error', reason: 'ORG_SIGN_IN_REQUIRED', errMsg: text }, ORIGIN]]);
    // Another account typed: the refusal goes, the password comes back.
    type('bo@elsewhere.example');
    await settle();
    expect(screen.queryByTestId('org-refused')).toBeNull();
    expect(screen.getByTestId('embedded-signin').classList.contains('org-only')).toBe(false);
  });
});

describe("the popup's side: Ciam's sign-in page back from the company", () => {
  it('hands the way back to the frame that opened it, redeems nothing, and closes', async () => {
    const opener = { postMessage: vi.fn() };
    Object.defineProperty(window, 'opener', { configurable: true, value: opener });
    const close = vi.spyOn(window, 'close').mockImplementation(() => {});
    const path = `/en-US/passport/signin?orgCode=c1&orgFrame=1&appId=a1&serviceUrl=${SERVICE}`;
    window.history.replaceState(null, '', path);
    try {
      await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], path);
      await settle();
      expect(opener.postMessage).toHaveBeenCalledWith({ type: 'ciam:org-back', kind: 'Code', value: 'c1' }, window.location.origin);
      expect(close).toHaveBeenCalled();
      expect(callsTo('POST', '/auth/login/federation')).toHaveLength(0);
      expect(window.location.search, 'the code leaves the address').toBe('');
    } finally {
      Object.defineProperty(window, 'opener', { configurable: true, value: null });
    }
  });

  it('without an opener, says so (and still redeems nothing)', async () => {
    const path = `/zh-CN/passport/signin?orgError=FEDERATION_CANCELLED&orgFrame=1`;
    window.history.replaceState(null, '', path);
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], path, { locale: 'zh-CN' });
    await settle();
    expect((await screen.findByTestId('org-frame-return')).textContent).toBe('此窗口已与打开它的页面失去联系。请关闭此窗口，在原页面重新开始。');
    expect(callsTo('POST', '/auth/login/federation')).toHaveLength(0);
  });
});
