// Staff sign-in through the company identity provider, on the sign-in screen, against a mocked
// API: the company button's address, the one-time code redeemed once and removed from the address,
// the errors shown in words (never words from the address), the second step, and the binding to the
// tab that started the sign-in (login CSRF).
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as mfa from '../../lib/mfa';
import * as toast from '../../lib/toast';
import SignIn from './signin';
import { keepQuery } from '../../lib/redirect';
import { BIND_KEY, bindHash, newBind, STAFF_PARAMS, staffStartUrl } from './staff-signin';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp } from '../../testing/render-app';
import { BASE } from '../../lib/api-url';

let calls: Call[] = [];
let answers: Record<string, Answer> = {};

function mockFetch() {
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
}

function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp(
    [
      { path: '/:language/passport/signin', element: <SignIn /> },
      { path: '/:language/passport/authorize', element: <p>consent screen</p> },
      { path: '/:language/personal/info', element: <p>personal centre</p> },
    ],
    path,
    { locale, onNeedTotp: (c) => mfa.open(c) },
  );
}

const at = (router: Awaited<ReturnType<typeof show>>) => router.state.location.pathname + router.state.location.search;
const staffCalls = () => calls.filter((c) => c.path === '/auth/login/staff');

beforeEach(() => {
  answers = { 'POST /auth/login/staff': () => [200, { token: 'u1.staff', userId: 'u1', expiresAt: 1 }] };
  mockFetch();
  // This tab started the sign-in.
  sessionStorage.setItem(BIND_KEY, 'b1');
});
afterEach(() => {
  cleanup();
  mfa.close();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

describe('the query around staff sign-in', () => {
  it('drops staffCode and staffError and keeps the rest as it came', () => {
    const withoutStaffParams = (search: string) => keepQuery(search, { drop: STAFF_PARAMS });
    // One parsing rule (lib/redirect.ts): a serviceUrl's value ends at the next '&'.
    expect(withoutStaffParams('?staffCode=c1&appId=a1&serviceUrl=https://p.example/cb?x=1&staffCode=y')).toBe('?appId=a1&serviceUrl=https://p.example/cb?x=1');
    expect(withoutStaffParams('?appId=a1&staffError=X&serviceUrl=https://p.example/cb?x=1')).toBe('?appId=a1&serviceUrl=https://p.example/cb?x=1');
    expect(withoutStaffParams('?staffError=EIAM_INVALID_MAIL')).toBe('');
    expect(withoutStaffParams('?serviceUrl=https://p.example/cb')).toBe('?serviceUrl=https://p.example/cb');
    expect(withoutStaffParams('')).toBe('');
  });

  it('sends the language, the bind hash and the query, encoded once, to the server', () => {
    expect(staffStartUrl('zh-CN', '?staffError=X&appId=a1&serviceUrl=https://p.example/cb', 'h-1_')).toBe(
      `${BASE}/auth/staff/start?lang=zh-CN&bindHash=h-1_&query=appId%3Da1%26serviceUrl%3Dhttps%3A%2F%2Fp.example%2Fcb`,
    );
    expect(staffStartUrl('en-US', '', 'h')).toBe(`${BASE}/auth/staff/start?lang=en-US&bindHash=h&query=`);
  });
});

describe('the binding of a staff sign-in to this tab', () => {
  it('hashes the bind with SHA-256 in base64url', async () => {
    expect(await bindHash('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('keeps a new random 256-bit bind in sessionStorage and gives only its hash away', async () => {
    const hash = await newBind();
    const bind = sessionStorage.getItem(BIND_KEY) ?? '';
    expect(bind).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bind).not.toBe('b1');
    expect(hash).toBe(await bindHash(bind));
    expect(hash).not.toBe(bind);
    await newBind();
    expect(sessionStorage.getItem(BIND_KEY)).not.toBe(bind);
  });
});

/** The start route's answer to the probe: back to sign-in with this staffError (fetch follows it). */
function startAnswers(staffError: string) {
  const fake = globalThis.fetch as (url: string, init?: RequestInit) => Promise<Response>;
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (!url.includes('/auth/staff/start')) return fake(url, init);
    const res = new Response('<!doctype html>', { status: 200 });
    Object.defineProperty(res, 'url', { value: `http://localhost/en-US/passport/signin?staffError=${staffError}` });
    return res;
  });
}

describe('the staff mode of the sign-in screen', () => {
  it('offers the company account first and keeps the password form below', async () => {
    startAnswers('INVALID_PARAMETER');
    await show('/en-US/passport/signin');
    expect(screen.queryByTestId('staff-company')).toBeNull();
    fireEvent.click(screen.getByTestId('signin-staff'));
    const company = await screen.findByTestId('staff-company');
    expect(company.textContent).toBe('Sign in with the company account');
    expect(company.compareDocumentPosition(screen.getByTestId('signin-password')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('shows the staff mode as the selected one, says things once, and has no company button without a provider', async () => {
    startAnswers('UNAVAILABLE');
    await show('/en-US/passport/signin');
    fireEvent.click(screen.getByTestId('signin-staff'));
    await screen.findByText('Staff sign in with their company e-mail and password.');
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.getByTestId('signin-staff').getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('signin-mode-password').getAttribute('aria-pressed')).toBe('false');
    expect(screen.queryByTestId('staff-company')).toBeNull();
    const text = document.body.textContent ?? '';
    expect(text.match(/Staff/g)).toHaveLength(2); // the mode's name and the note, once each
    expect(text.match(/company e-mail/gi)).toHaveLength(2); // the note and the field's label
  });

  it('with a provider: the company button and its "or" line, without the note of the password form', async () => {
    startAnswers('INVALID_PARAMETER');
    await show('/en-US/passport/signin');
    fireEvent.click(screen.getByTestId('signin-staff'));
    await screen.findByTestId('staff-company');
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByText('Staff sign in with their company e-mail and password.')).toBeNull();
    expect(screen.getByText('Or sign in with your company e-mail and your Ciam password:')).toBeTruthy();
  });

  it('speaks Chinese in zh-CN', async () => {
    startAnswers('INVALID_PARAMETER');
    await show('/zh-CN/passport/signin', 'zh-CN');
    fireEvent.click(screen.getByTestId('signin-staff'));
    expect((await screen.findByTestId('staff-company')).textContent).toBe('使用公司账号登录');
  });
});

describe('coming back from the company identity provider', () => {
  it('redeems the code once, removes it from the address and goes on like a password sign-in', async () => {
    const router = await show('/en-US/passport/signin?staffCode=c1&from=x');
    expect(staffCalls()).toEqual([{ method: 'POST', path: '/auth/login/staff', body: { code: 'c1', bind: 'b1' } }]);
    expect(localStorage.getItem('ciam_token')).toBe('u1.staff');
    expect(at(router)).toBe('/en-US/personal/info?from=x');
    expect(sessionStorage.getItem(BIND_KEY), 'the bind serves once').toBeNull();
  });

  it('never redeems a code this tab did not start (a link someone sent)', async () => {
    sessionStorage.clear();
    const router = await show('/en-US/passport/signin?staffCode=c1&appId=a1');
    expect(staffCalls()).toHaveLength(0);
    expect(screen.getByTestId('staff-error').textContent).toBe('Sign-in with the company account failed. Please try again.');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
  });

  it('goes on to the consent screen when a partner sent the user', async () => {
    const router = await show('/en-US/passport/signin?staffCode=c1&appId=a1&serviceUrl=https://p.example/cb');
    expect(staffCalls()).toHaveLength(1);
    expect(at(router)).toBe('/en-US/passport/authorize?appId=a1&serviceUrl=https://p.example/cb');
  });

  it('opens the second step when two-factor is on', async () => {
    answers['POST /auth/login/staff'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch1' }];
    const router = await show('/en-US/passport/signin?staffCode=c1');
    expect(mfa.current()).toBe('ch1');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(at(router)).toBe('/en-US/passport/signin');
  });

  it('shows a used or expired code on the screen and stays', async () => {
    answers['POST /auth/login/staff'] = () => [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }];
    const router = await show('/en-US/passport/signin?staffCode=c1&appId=a1&serviceUrl=https://p.example/cb');
    expect(screen.getByTestId('staff-error').textContent).not.toBe('');
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1&serviceUrl=https://p.example/cb');
  });

  it('shows the error the server sent back, in words of the catalogue only', async () => {
    const router = await show('/en-US/passport/signin?staffError=EIAM_INVALID_MAIL&appId=a1');
    expect(screen.getByTestId('staff-error').textContent).toBe('This is not a staff e-mail address');
    expect(at(router)).toBe('/en-US/passport/signin?appId=a1');
    expect(staffCalls()).toHaveLength(0);
    expect(sessionStorage.getItem(BIND_KEY), 'the bind is dropped').toBeNull();
    cleanup();
    await show('/zh-CN/passport/signin?staffError=UNAVAILABLE', 'zh-CN');
    expect(screen.getByTestId('staff-error').textContent).toBe('暂不支持使用公司账号登录，请使用公司邮箱和密码。');
    cleanup();
    await show('/en-US/passport/signin?staffError=Call%20%2B1-555%20now');
    expect(screen.getByTestId('staff-error').textContent).toBe('Sign-in with the company account failed. Please try again.');
  });
});
