// The API client (spec §7) and the default error handling of spec §8, against a mocked fetch.
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { testIntl } from '../testing/render-app';
import { type ApiHost, BASE, call, configure, errorText, handleError, lockMinutes, postToHost, type RequestOptions, type Route, url } from './api';
import * as mfa from './mfa';
import * as session from './session';
import * as toast from './toast';

/** Calls by method and path with any body, for the tests of what every call shares. */
const raw = (method: string, path: string, body?: unknown, opts?: RequestOptions) =>
  (call as (r: Route, a: { body?: unknown }, o?: RequestOptions) => ReturnType<typeof call>)(`${method} ${path}` as Route, { body }, opts);
const plain = {
  get: (path: string, opts?: RequestOptions) => raw('GET', path, undefined, opts),
  post: (path: string, body: unknown, opts?: RequestOptions) => raw('POST', path, body, opts),
  patch: (path: string, body: unknown, opts?: RequestOptions) => raw('PATCH', path, body, opts),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NOW = new Date('2026-03-01T10:00:00Z').getTime();

let navigate: Mock<(to: string) => void>;
let onTotpEnabled: Mock<() => void>;
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

/** The same host the app configures (app/app.tsx), on the real compiled catalogue. */
function hostFor(locale: 'en-US' | 'zh-CN'): ApiHost {
  const intl = testIntl(locale);
  return {
    locale: () => locale,
    translate: (id, values) => (intl.messages[id] ? intl.formatMessage({ id }, values) : null),
    navigate: (to) => navigate(to),
    onNeedTotp: (c) => mfa.open(c),
    onTotpEnabled: () => onTotpEnabled(),
  };
}

function reply(status: number, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return Promise.resolve(new Response(text, { status, headers: { 'content-type': 'application/json' } }));
}
function failWith(reason: string, message = '', code = 400, extra: Record<string, unknown> = {}) {
  fetchMock.mockImplementationOnce(() => reply(code, { reason, message, code, ...extra }));
}
function at(path: string) {
  window.history.replaceState(null, '', path);
}
const texts = () => toast.current().map((t) => t.text);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(NOW);
  localStorage.clear();
  navigate = vi.fn<(to: string) => void>();
  onTotpEnabled = vi.fn<() => void>();
  fetchMock = vi.fn((_url: string, _init?: RequestInit) => reply(200, { ok: true }));
  vi.stubGlobal('fetch', fetchMock);
  configure(hostFor('en-US'));
  at('/en-US/passport/signin');
});
afterEach(() => {
  for (const t of toast.current()) toast.dismiss(t.id);
  mfa.close();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('every request', () => {
  it('sends Authorization: Bearer <stored token> and a fresh UUID X-Request-ID', async () => {
    localStorage.setItem('ciam_token', 'u1.secret-token');
    await plain.get('/auth/info');
    await plain.post('/auth/login/password', { account: 'a@example.com', password: 'x' });
    await plain.patch('/auth/info', { company: 'Acme' });
    expect(fetchMock).toHaveBeenCalledTimes(3);
    const ids = new Set<string>();
    for (const [url, init] of fetchMock.mock.calls as [string, RequestInit][]) {
      expect(url.startsWith(`${BASE}/`)).toBe(true);
      const h = init.headers as Record<string, string>;
      expect(h.Authorization).toBe('Bearer u1.secret-token');
      expect(h['X-Request-ID']).toMatch(UUID);
      ids.add(h['X-Request-ID']!);
    }
    expect(ids.size).toBe(3);
  });

  it('reads the token at request time (a new sign-in is used at once)', async () => {
    localStorage.setItem('ciam_token', 'old');
    await plain.get('/auth/info');
    session.start('new');
    await plain.get('/auth/info');
    const auth = (fetchMock.mock.calls as [string, RequestInit][]).map(([, i]) => (i.headers as Record<string, string>).Authorization);
    expect(auth).toEqual(['Bearer old', 'Bearer new']);
  });

  it('sends JSON bodies with the method and the language', async () => {
    await plain.patch('/auth/info', { company: 'Acme' });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe(`${BASE}/auth/info`);
    expect(init.method).toBe('PATCH');
    expect(init.body).toBe('{"company":"Acme"}');
    const h = init.headers as Record<string, string>;
    expect(h['Content-Type']).toBe('application/json');
    expect(h['Accept-Language']).toBe('en-US');
    await plain.get('/auth/info');
    const [, get] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(get.body).toBeUndefined();
    expect((get.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it('returns success with the data on 2xx', async () => {
    fetchMock.mockImplementationOnce(() => reply(200, { token: 't' }));
    expect(await plain.post('/auth/login/password', {})).toEqual({ success: true, data: { token: 't' } });
  });
});

describe('errors: the message', () => {
  it('maps the reason to the localised text', async () => {
    failWith('PASSWORD_ERROR', 'server text', 401);
    const r = await plain.post('/auth/login/password', {});
    expect(r).toMatchObject({ success: false, error: { reason: 'PASSWORD_ERROR', code: 401 } });
    expect(texts()).toEqual(['Incorrect account or password']);
  });

  it('in Chinese too', async () => {
    configure(hostFor('zh-CN'));
    failWith('PASSWORD_ERROR', '', 401);
    await plain.post('/auth/login/password', {});
    expect(texts()).toEqual(['账号或密码错误']);
  });

  it('falls back to the server message, then to the raw reason', () => {
    expect(errorText({ reason: 'SOMETHING_NEW', message: 'Server says', code: 400 })).toBe('Server says');
    expect(errorText({ reason: 'SOMETHING_NEW', message: '', code: 400 })).toBe('SOMETHING_NEW');
  });

  it('INVALID_PARAMETER shows the server message (it names the field)', () => {
    expect(errorText({ reason: 'INVALID_PARAMETER', message: 'account: invalid', code: 400 })).toBe('account: invalid');
    expect(errorText({ reason: 'INVALID_PARAMETER', message: '', code: 400 })).toBe('Invalid parameter');
  });

  it('a body that is not JSON is an internal error with the HTTP status', async () => {
    fetchMock.mockImplementationOnce(() => Promise.resolve(new Response('<html>bad gateway</html>', { status: 502 })));
    const r = await plain.get('/auth/info');
    expect(r).toEqual({ success: false, error: expect.objectContaining({ reason: 'INTERNAL_SERVER_ERROR', code: 502 }) });
    expect(texts()).toEqual(['Internal server error']);
  });

  it('a network failure is NETWORK_ERROR', async () => {
    fetchMock.mockImplementationOnce(() => Promise.reject(new TypeError('Failed to fetch')));
    const r = await plain.get('/auth/info');
    expect(r).toMatchObject({ success: false, error: { reason: 'NETWORK_ERROR' } });
    expect(texts()).toEqual(['Network error, please check your connection']);
  });

  it('shows at most 2 toasts at a time', async () => {
    failWith('PASSWORD_ERROR');
    failWith('CODE_ERROR');
    failWith('TICKET_NOT_FOUND');
    await plain.post('/a', {});
    await plain.post('/b', {});
    await plain.post('/c', {});
    expect(texts()).toEqual(['Invalid verification code', 'Ticket not found']);
  });
});

describe('AUTHORIZATION_FAILED', () => {
  it('clears the session and goes to sign-in keeping the query minus serviceUrl, without a message', async () => {
    session.start('tok');
    localStorage.setItem('umi_locale', 'en-US');
    at('/en-US/personal/info?serviceUrl=https://app.example.com/cb&from=mail&validateMsg=notice');
    failWith('AUTHORIZATION_FAILED', '', 401);
    const r = await plain.get('/auth/info');
    expect(r.success).toBe(false);
    expect(session.isLoggedIn()).toBe(false);
    expect(localStorage.getItem('lastActionTime')).toBeNull();
    expect(localStorage.getItem('umi_locale')).toBe('en-US');
    expect(navigate).toHaveBeenCalledTimes(1);
    const to = navigate.mock.calls[0]![0] as string;
    const u = new URL(to, 'http://x');
    expect(u.pathname).toBe('/en-US/passport/signin');
    expect(u.searchParams.has('serviceUrl')).toBe(false);
    expect(u.searchParams.get('from')).toBe('mail');
    expect(u.searchParams.get('validateMsg')).toBe('notice');
    expect(texts()).toEqual([]);
  });

  it('uses the current locale in the path', async () => {
    configure(hostFor('zh-CN'));
    session.start('tok');
    at('/zh-CN/personal/secure');
    failWith('AUTHORIZATION_FAILED', '', 401);
    await plain.get('/auth/info');
    expect(navigate).toHaveBeenCalledWith('/zh-CN/passport/signin');
  });

  it('when embedded: clears the session, stays, no toast', async () => {
    session.start('tok');
    at('/en-US/embedded/signin?serviceUrl=https://host.example.com/page&validateMsg=notice');
    failWith('AUTHORIZATION_FAILED', '', 401);
    await plain.get('/auth/info');
    expect(session.isLoggedIn()).toBe(false);
    expect(navigate).not.toHaveBeenCalled();
    expect(texts()).toEqual([]);
  });

  it('skipErrorHandler: nothing happens, the caller gets the error', async () => {
    session.start('tok');
    failWith('AUTHORIZATION_FAILED', '', 401);
    const r = await plain.get('/auth/info', { skipErrorHandler: true });
    expect(r).toMatchObject({ success: false, error: { reason: 'AUTHORIZATION_FAILED', code: 401 } });
    expect(session.isLoggedIn()).toBe(true);
    expect(navigate).not.toHaveBeenCalled();
    expect(texts()).toEqual([]);
  });
});

describe('VERIFICATION_ATTEMPT_CODE_LIMIT', () => {
  const nowS = NOW / 1000;
  it.each([
    [nowS + 1, 1],
    [nowS + 60, 1],
    [nowS + 61, 2],
    [nowS + 90, 2],
    [nowS + 15 * 60, 15],
    [nowS + 14 * 60 + 59.5, 15],
  ])('unlock at %s -> %s minute(s), rounded up', async (until, n) => {
    expect(lockMinutes(String(until), NOW)).toBe(n);
    failWith('VERIFICATION_ATTEMPT_CODE_LIMIT', String(until), 423);
    await plain.post('/auth/login/password', {});
    expect(texts()).toEqual([`Your account has been locked, please try it in ${n} minute${n === 1 ? '' : 's'}`]);
  });

  it.each([['', 'empty'], ['abc', 'not a number'], [String(nowS), 'now'], [String(nowS - 60), 'past'], ['0', 'zero'], ['-5', 'negative'], ['Infinity', 'infinite']])(
    "'%s' (%s) -> try again later",
    async (message) => {
      expect(lockMinutes(message, NOW)).toBeNull();
      failWith('VERIFICATION_ATTEMPT_CODE_LIMIT', message, 423);
      await plain.post('/auth/login/password', {});
      expect(texts()).toEqual(['Your account has been locked, please try again later']);
    },
  );

  it('in Chinese', async () => {
    configure(hostFor('zh-CN'));
    failWith('VERIFICATION_ATTEMPT_CODE_LIMIT', String(nowS + 125), 423);
    await plain.post('/auth/login/password', {});
    failWith('VERIFICATION_ATTEMPT_CODE_LIMIT', 'x', 423);
    await plain.post('/auth/login/password', {});
    expect(texts()).toEqual(['您的账号已被锁定，请 3 分钟后再试', '您的账号已被锁定，请稍后再试']);
  });
});

describe('EIAM_PASSWORD_UNSET', () => {
  it('shows a loading message for 1200 ms, then goes to find-password keeping the query minus serviceUrl', async () => {
    at('/en-US/passport/signin?serviceUrl=https://app.example.com&ref=portal');
    failWith('EIAM_PASSWORD_UNSET', '', 403);
    await plain.post('/auth/login/password', {});
    expect(toast.current()).toEqual([expect.objectContaining({ kind: 'loading', text: 'Please set a password for your staff account first…' })]);
    vi.advanceTimersByTime(1199);
    expect(navigate).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(navigate).toHaveBeenCalledWith('/en-US/find/password?ref=portal');
    expect(toast.current()).toEqual([]);
  });

  it('uses the current locale', async () => {
    configure(hostFor('zh-CN'));
    at('/zh-CN/passport/signin');
    failWith('EIAM_PASSWORD_UNSET', '', 403);
    await plain.post('/auth/login/password', {});
    vi.advanceTimersByTime(1200);
    expect(navigate).toHaveBeenCalledWith('/zh-CN/find/password');
  });
});

describe('two-factor reasons', () => {
  it('USER_TOTP_ENABLED marks TOTP enabled, without a toast', async () => {
    failWith('USER_TOTP_ENABLED', '', 409);
    await plain.post('/auth/totp/enable', {});
    expect(onTotpEnabled).toHaveBeenCalledOnce();
    expect(texts()).toEqual([]);
  });

  it('NEED_TOTP_VERIFY opens the MFA step with the challenge', async () => {
    expect(mfa.current()).toBeNull();
    failWith('NEED_TOTP_VERIFY', '', 403, { challenge: 'ch-123' });
    const r = await plain.post('/auth/login/password', {});
    expect(r).toMatchObject({ success: false, error: { reason: 'NEED_TOTP_VERIFY', challenge: 'ch-123' } });
    expect(mfa.current()).toBe('ch-123');
    expect(texts()).toEqual([]);
    mfa.close();
    expect(mfa.current()).toBeNull();
  });

  it('mfa notifies subscribers', () => {
    const l = vi.fn();
    const off = mfa.subscribe(l);
    mfa.open(undefined);
    expect(mfa.current()).toBe('');
    off();
    mfa.close();
    expect(l).toHaveBeenCalledOnce();
  });
});

describe('embedded mode', () => {
  let post: Mock<(msg: unknown, origin: string) => void>;
  /** The framing page: its origin, as the browser reports it (ancestorOrigins or referrer). */
  const framedBy = (origin: string) => Object.defineProperty(document, 'referrer', { configurable: true, value: origin ? `${origin}/` : '' });
  beforeEach(() => {
    post = vi.fn();
    Object.defineProperty(window, 'parent', { configurable: true, value: { postMessage: post } });
    framedBy('https://host.example.com');
  });
  afterEach(() => {
    Object.defineProperty(window, 'parent', { configurable: true, value: window });
    framedBy('');
    session.memoryOnly(false);
  });

  it('no toast; posts the typed error to the parent at the serviceUrl origin when validateMsg is notice', async () => {
    framedBy('https://host.example.com:8443');
    at('/en-US/embedded/signin?serviceUrl=https%3A%2F%2Fhost.example.com%3A8443%2Fapp%3Fx%3D1&validateMsg=notice');
    failWith('PASSWORD_ERROR', '', 401);
    const r = await plain.post('/auth/login/password', {});
    expect(r.success).toBe(false);
    expect(texts()).toEqual([]);
    expect(post).toHaveBeenCalledOnce();
    const [msg, origin] = post.mock.calls[0]!;
    expect(origin).toBe('https://host.example.com:8443');
    // Exactly the documented shape: nothing else travels.
    expect(msg).toEqual({ type: 'ciam:error', reason: 'PASSWORD_ERROR', errMsg: 'Incorrect account or password' });
  });

  it('no post when the framing page is at another origin than the serviceUrl', async () => {
    framedBy('https://evil.example.net');
    at('/en-US/embedded/signin?appId=a&serviceUrl=https://host.example.com/app&validateMsg=notice');
    failWith('PASSWORD_ERROR', '', 401);
    await plain.post('/auth/login/password', {});
    expect(post).not.toHaveBeenCalled();
    expect(texts()).toEqual([]);
  });

  it.each([
    ['validateMsg missing', '?serviceUrl=https://host.example.com/'],
    ['validateMsg other', '?serviceUrl=https://host.example.com/&validateMsg=yes'],
    ['serviceUrl missing', '?validateMsg=notice'],
    ['serviceUrl relative', '?serviceUrl=/cb&validateMsg=notice'],
    ['serviceUrl not http', '?serviceUrl=javascript:alert(1)&validateMsg=notice'],
  ])('no post, no toast: %s', async (_, search) => {
    at(`/en-US/embedded/signin${search}`);
    failWith('CODE_ERROR');
    await plain.post('/auth/login/code', {});
    expect(post).not.toHaveBeenCalled();
    expect(texts()).toEqual([]);
  });

  it.each(['EIAM_PASSWORD_UNSET', 'NEED_TOTP_VERIFY'])('%s in the frame: posted as a refusal, the frame never navigates', async (reason) => {
    at('/en-US/embedded/signin?appId=a&serviceUrl=https://host.example.com/cb&validateMsg=notice');
    failWith(reason, '', 401, { challenge: 'c-1' });
    await plain.post('/auth/login/password', {});
    await vi.advanceTimersByTimeAsync(5000);
    expect(navigate).not.toHaveBeenCalled();
    expect(mfa.current()).toBeNull();
    expect(post).toHaveBeenCalledOnce();
    const [msg] = post.mock.calls[0]!;
    expect(Object.keys(msg as object).sort()).toEqual(['errMsg', 'reason', 'type']);
    expect((msg as { reason: string }).reason).toBe(reason);
  });

  it('never posts to "*"', async () => {
    for (const s of ['?serviceUrl=*&validateMsg=notice', '?validateMsg=notice&serviceUrl=https://host.example.com']) {
      at(`/zh-CN/embedded/signin${s}`);
      failWith('CODE_ERROR');
      await plain.post('/auth/login/code', {});
    }
    for (const call of post.mock.calls) expect(call[1]).not.toBe('*');
    expect(post).toHaveBeenCalledTimes(1);
  });

  it('not embedded: a toast, no post', async () => {
    at('/en-US/passport/signin?serviceUrl=https://host.example.com/&validateMsg=notice');
    failWith('CODE_ERROR');
    await plain.post('/auth/login/code', {});
    expect(post).not.toHaveBeenCalled();
    expect(texts()).toEqual(['Invalid verification code']);
  });

  it('skipErrorHandler: no post either', async () => {
    at('/en-US/embedded/signin?serviceUrl=https://host.example.com/&validateMsg=notice');
    failWith('CODE_ERROR');
    const r = await plain.post('/auth/login/code', {}, { skipErrorHandler: true });
    expect(r.success).toBe(false);
    expect(post).not.toHaveBeenCalled();
  });

  it('postToHost: the given message at the serviceUrl origin, only to a parent at that origin', () => {
    expect(postToHost({ type: 'ciam:ticket', cTicket: 'ST-1', serviceUrl: 'https://host.example.com/cb' }, 'https://host.example.com/cb')).toBe(true);
    expect(post).toHaveBeenCalledWith({ type: 'ciam:ticket', cTicket: 'ST-1', serviceUrl: 'https://host.example.com/cb' }, 'https://host.example.com');
    expect(postToHost({ type: 'ciam:cancel' }, 'https://other.example.com/cb')).toBe(false);
    Object.defineProperty(window, 'parent', { configurable: true, value: window });
    expect(postToHost({ type: 'ciam:cancel' }, 'https://host.example.com/cb')).toBe(false);
    expect(post).toHaveBeenCalledOnce();
  });

  it('the session is in memory only: the frame token is sent, storage is neither read nor written', async () => {
    session.start('stored-token');
    at('/en-US/embedded/signin?appId=a&serviceUrl=https://host.example.com/cb');
    session.memoryOnly(true); // what the embedded screen switches on
    await plain.get('/auth/consent');
    expect((fetchMock.mock.calls[0]![1]!.headers as Record<string, string>).Authorization).toBeUndefined();
    session.start('frame-token');
    await plain.get('/auth/consent');
    expect((fetchMock.mock.calls[1]![1]!.headers as Record<string, string>).Authorization).toBe('Bearer frame-token');
    expect(localStorage.getItem('ciam_token')).toBe('stored-token');
    session.memoryOnly(false); // the embedded screen is left
    expect(session.token()).toBe('stored-token');
    at('/en-US/personal/info');
    await plain.get('/auth/info');
    expect((fetchMock.mock.calls[2]![1]!.headers as Record<string, string>).Authorization).toBe('Bearer stored-token');
  });
});

describe('skipErrorHandler', () => {
  it('returns the error without a toast, redirect or timer', async () => {
    failWith('EIAM_PASSWORD_UNSET', '', 403);
    failWith('CODE_ERROR');
    failWith('NEED_TOTP_VERIFY', '', 403, { challenge: 'c' });
    expect((await plain.post('/auth/login/password', {}, { skipErrorHandler: true })).success).toBe(false);
    expect((await plain.post('/auth/login/code', {}, { skipErrorHandler: true })).success).toBe(false);
    expect((await plain.post('/auth/login/password', {}, { skipErrorHandler: true })).success).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(texts()).toEqual([]);
    expect(navigate).not.toHaveBeenCalled();
    expect(mfa.current()).toBeNull();
  });

  it('handleError can be called directly by a caller that skipped it', () => {
    handleError({ reason: 'CODE_ERROR', message: '', code: 400 });
    expect(texts()).toEqual(['Invalid verification code']);
  });
});

describe('call: one operation of the document', () => {
  it('puts the path parameters into the path, encoded', async () => {
    fetchMock.mockImplementation(() => reply(200, { ok: true }));
    await call('DELETE /auth/sessions/{id}', { params: { id: 'a/b c' } });
    const [u, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(u).toBe(`${BASE}/auth/sessions/a%2Fb%20c`);
    expect(init.method).toBe('DELETE');
    expect(init.body).toBeUndefined();
  });

  it('writes the query in the order given, leaving out what is undefined', async () => {
    fetchMock.mockImplementation(() => reply(200, { accounts: [] }));
    await call('GET /admin/directory', { query: { company: 'A&B', after: undefined } });
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`${BASE}/admin/directory?company=A%26B`);
    expect(url('GET /auth/staff/start', { query: { lang: 'en-US', bindHash: 'h', query: '' } })).toBe(`${BASE}/auth/staff/start?lang=en-US&bindHash=h&query=`);
  });

  it('sends the body as JSON, {} when a POST has none, and answers the JSON', async () => {
    fetchMock.mockImplementation(() => reply(200, { ok: true }));
    const r = await call('POST /auth/totp/disable');
    const [u, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(u).toBe(`${BASE}/auth/totp/disable`);
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{}');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(r).toEqual({ success: true, data: { ok: true } });
  });

  it('sends a file body as it is (fetch gives it its own Content-Type)', async () => {
    fetchMock.mockImplementation(() => reply(200, { avatar: 'x' }));
    const file = new Blob(['png'], { type: 'image/png' });
    await call('PATCH /auth/avatar', { body: file }, { skipErrorHandler: true });
    const init = fetchMock.mock.calls[0]?.[1] as RequestInit;
    expect(init.body).toBe(file);
    // fetch sends the file's own type as its Content-Type.
    expect((init.headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it('reads a file answer with `read`, and a refusal as an error all the same', async () => {
    fetchMock.mockImplementation(() => Promise.resolve(new Response('a,b', { status: 200 })));
    const ok = await call('GET /admin/audit', { query: { from: 'x', to: 'y', format: 'csv' } }, { read: (res) => res.text() });
    expect(ok).toEqual({ success: true, data: 'a,b' });
    fetchMock.mockImplementation(() => reply(403, { reason: 'ADMIN_FORBIDDEN', message: '', code: 403 }));
    const no = await call('GET /admin/audit', { query: { from: 'x', to: 'y' } }, { skipErrorHandler: true, read: (res) => res.text() });
    expect(no.success).toBe(false);
  });
});
