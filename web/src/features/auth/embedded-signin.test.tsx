// The embedded sign-in against a mocked API: what is posted to the framing page (and only to the
// serviceUrl's origin), and the consent step's reload when the app changed its scopes.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import * as mfa from '../../lib/mfa';
import * as toast from '../../lib/toast';
import EmbeddedSignIn from './embedded-signin';
import { type Answer, type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp, settle } from '../../testing/render-app';
import { resetGate } from '../../lib/passkey-gate';
import { MfaHost } from '../../components/mfa-host';

let calls: Call[] = [];
let answers: Record<string, Answer> = {};
let post: Mock<(msg: unknown, origin: string) => void>;
const callsTo = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);

const ORIGIN = 'https://host.example.com';
const SERVICE = `${ORIGIN}/cb`;
const PATH = `/en-US/embedded/signin?appId=a1&serviceUrl=${SERVICE}&validateMsg=notice`;
const CONTEXT_PATH = `/auth/consent?appId=a1&serviceUrl=${encodeURIComponent(SERVICE)}`;
const CTX = {
  appId: 'a1', name: 'Factory Portal', logo: 'https://cdn.example.com/logo.png', scopes: ['email', 'nickname'],
  granted: false, serviceUrl: SERVICE, cancelUrl: `${SERVICE}?cError=access_denied`,
};
const SCOPES_CHANGED: [number, unknown] = [400, { reason: 'INVALID_PARAMETER', message: 'scopes changed', code: 400, field: 'scopes' }];

function mockFetch() {
  ({ calls, answers } = fakeApi(answers, NOT_FOUND));
}

async function show(path = PATH) {
  window.history.replaceState(null, '', path);
  // The shell's second-step host beside the screen, as in the app.
  const element = (
    <>
      <EmbeddedSignIn />
      <MfaHost />
    </>
  );
  await renderApp([{ path: '/:language/embedded/signin', element }], path, { onNeedTotp: (c) => mfa.open(c) });
}

async function signIn() {
  const f = screen.getByTestId('signin-password') as HTMLFormElement;
  fireEvent.change(f.elements.namedItem('account') as HTMLInputElement, { target: { value: 'ann@example.com' } });
  fireEvent.change(f.elements.namedItem('password') as HTMLInputElement, { target: { value: 'Secret-2026!' } });
  fireEvent.submit(f);
  await settle();
}

const button = (id: string) => screen.getByTestId(id) as HTMLButtonElement;
const scopesShown = () => [...screen.getByTestId('embedded-scopes').querySelectorAll('li')].map((li) => li.textContent);

beforeEach(() => {
  answers = {
    [`GET ${CONTEXT_PATH}`]: () => [200, CTX],
    'POST /auth/login/token': () => [200, { cTicket: 'CT-1', redirect: `${SERVICE}?cTicket=CT-1` }],
    'POST /auth/login/password': () => [200, { token: 'u1.frame' }],
  };
  mockFetch();
  localStorage.setItem('ciam_token', 'u9.stored');
  post = vi.fn();
  // Framed by the serviceUrl's origin.
  Object.defineProperty(window, 'parent', { configurable: true, value: { postMessage: post } });
  Object.defineProperty(document, 'referrer', { configurable: true, value: `${ORIGIN}/` });
});
afterEach(() => {
  cleanup();
  mfa.close();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  Object.defineProperty(window, 'parent', { configurable: true, value: window });
  Object.defineProperty(document, 'referrer', { configurable: true, value: '' });
  localStorage.clear();
});

// The lazy passkey chunk, loaded once up front: its first import() may outlast settle()'s rounds.
beforeAll(async () => {
  await import('../../lib/passkey');
});

describe('the embedded sign-in', () => {
  it('Cancel on the consent step posts exactly {type:"ciam:cancel"} to the serviceUrl origin', async () => {
    await show();
    await signIn();
    expect(screen.getByTestId('embedded-consent')).toBeTruthy();
    expect(post).not.toHaveBeenCalled();
    fireEvent.click(button('embedded-cancel'));
    await settle();
    expect(post.mock.calls).toEqual([[{ type: 'ciam:cancel' }, ORIGIN]]);
    expect(screen.getByTestId('embedded-cancelled')).toBeTruthy();
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(0);
  });

  it('Allow posts {type:"ciam:ticket", cTicket, serviceUrl} to the serviceUrl origin; the session stays in memory', async () => {
    await show();
    await signIn();
    fireEvent.click(button('embedded-allow'));
    await settle();
    expect(callsTo('POST', '/auth/login/token').map((c) => c.body)).toEqual([{ appId: 'a1', serviceUrl: SERVICE, scopes: CTX.scopes }]);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(screen.getByTestId('embedded-done')).toBeTruthy();
    // The frame's token is sent, the stored one never; storage is not written.
    expect(callsTo('POST', '/auth/login/password')[0]!.auth).toBeUndefined();
    expect(calls.filter((c) => c.path.startsWith('/auth/') && c.path !== '/auth/login/password').map((c) => c.auth)).toEqual(['Bearer u1.frame', 'Bearer u1.frame']);
    // The app's name for "to continue to": the public list, asked without the stored token.
    expect(callsTo('GET', '/app/language/en-US').map((c) => c.auth)).toEqual([undefined]);
    expect(localStorage.getItem('ciam_token')).toBe('u9.stored');
  });

  it('an already allowed app: the ticket is posted straight after sign-in', async () => {
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    await show();
    await signIn();
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(screen.getByTestId('embedded-done')).toBeTruthy();
  });

  it('a 400 INVALID_PARAMETER on field scopes reloads the context once and shows the new scopes', async () => {
    const changed = { ...CTX, scopes: ['email', 'phone'] };
    let contexts = 0;
    answers[`GET ${CONTEXT_PATH}`] = () => [200, contexts++ === 0 ? CTX : changed];
    let tickets = 0;
    answers['POST /auth/login/token'] = () => (tickets++ === 0 ? SCOPES_CHANGED : [200, { cTicket: 'CT-2', redirect: `${SERVICE}?cTicket=CT-2` }]);
    await show();
    await signIn();
    expect(scopesShown()).toEqual(['Your display name', 'Your e-mail address']);
    fireEvent.click(button('embedded-allow'));
    await settle();
    expect(callsTo('GET', CONTEXT_PATH)).toHaveLength(2);
    expect(scopesShown()).toEqual(['Your phone number', 'Your e-mail address']);
    expect(post).not.toHaveBeenCalled();
    fireEvent.click(button('embedded-allow'));
    await settle();
    expect(callsTo('POST', '/auth/login/token').map((c) => (c.body as { scopes: string[] }).scopes)).toEqual([CTX.scopes, changed.scopes]);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-2', serviceUrl: SERVICE }, ORIGIN]]);
  });

  it('reloads only once when the scopes keep changing: then the refusal is shown (and posted)', async () => {
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    answers['POST /auth/login/token'] = () => SCOPES_CHANGED;
    await show();
    await signIn();
    expect(callsTo('GET', CONTEXT_PATH)).toHaveLength(2);
    expect(callsTo('POST', '/auth/login/token')).toHaveLength(2);
    expect(screen.getByTestId('embedded-error').textContent).toContain('scopes changed');
    expect(post.mock.calls).toEqual([[{ type: 'ciam:error', reason: 'INVALID_PARAMETER', errMsg: 'scopes changed' }, ORIGIN]]);
  });
});

describe('passkeys in the frame', () => {
  const OPTIONS = { passkeyChallenge: 'PC', publicKey: { challenge: 'AQID', rpId: 'localhost' } };
  const CRED = { id: 'AQI', rawId: new Uint8Array([1]).buffer, type: 'public-key', toJSON: () => ({ id: 'AQI', rawId: 'AQI', type: 'public-key', response: {} }) };
  let get: Mock<(o: CredentialRequestOptions) => Promise<unknown>>;
  const conditional = vi.fn(async () => true);
  function browser(policy?: boolean) {
    resetGate();
    get = vi.fn(async () => CRED);
    Object.defineProperty(navigator, 'credentials', { configurable: true, value: { get } });
    vi.stubGlobal('PublicKeyCredential', Object.assign(class {}, { isConditionalMediationAvailable: conditional }));
    vi.stubGlobal('requestIdleCallback', (f: () => void) => setTimeout(f, 1));
    Object.defineProperty(document, 'featurePolicy', {
      configurable: true,
      value: policy === undefined ? undefined : { allowsFeature: (f: string) => f === 'publickey-credentials-get' && policy },
    });
    answers['POST /auth/login/passkey/options'] = () => [200, OPTIONS];
    answers['POST /auth/login/passkey'] = () => [200, { token: 'u1.pk' }];
    mockFetch();
  }
  afterEach(() => {
    Object.defineProperty(document, 'featurePolicy', { configurable: true, value: undefined });
    Object.defineProperty(navigator, 'credentials', { configurable: true, value: undefined });
  });

  it('signs in with the app id when the frame is allowed to ask, with no autofill request, then posts the ticket', async () => {
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    browser(true);
    await show();
    // No passkey autofill in a frame: the account field is a plain username.
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    expect((f.elements.namedItem('account') as HTMLInputElement).getAttribute('autocomplete')).toBe('username');
    fireEvent.click(button('signin-passkey'));
    await settle();
    expect(callsTo('POST', '/auth/login/passkey/options')[0]!.body).toEqual({ appId: 'a1' });
    expect(get.mock.calls.map((c) => c[0].mediation)).toEqual([undefined]);
    expect(conditional).not.toHaveBeenCalled();
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(localStorage.getItem('ciam_token')).toBe('u9.stored');
  });

  it('shows a refusal in the frame and tells the host page, as for a password', async () => {
    browser(true);
    answers['POST /auth/login/passkey'] = () => [404, { reason: 'PASSKEY_NOT_FOUND', message: '', code: 404 }];
    mockFetch();
    await show();
    fireEvent.click(button('signin-passkey'));
    await settle();
    const note = screen.getByTestId('passkey-note');
    expect(note.getAttribute('role')).toBe('alert');
    expect(post.mock.calls).toEqual([[{ type: 'ciam:error', reason: 'PASSKEY_NOT_FOUND', errMsg: note.textContent }, ORIGIN]]);
    expect(toast.current()).toHaveLength(0);
  });

  it('the second step by passkey in the frame names the app, then posts the ticket', async () => {
    browser(true);
    answers['POST /auth/login/password'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch-9' }];
    answers['POST /auth/login/passkey/mfa/options'] = () => [200, OPTIONS];
    answers['POST /auth/login/passkey/mfa'] = () => [200, { token: 'u1.pkmfa' }];
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    mockFetch();
    await show();
    await signIn();
    fireEvent.click(button('mfa-passkey'));
    await settle();
    expect(callsTo('POST', '/auth/login/passkey/mfa/options').map((c) => c.body)).toEqual([{ challenge: 'ch-9', appId: 'a1' }]);
    expect(callsTo('POST', '/auth/login/passkey/mfa').map((c) => (c.body as { challenge: string }).challenge)).toEqual(['ch-9']);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
  });

  it('no passkey as second step when the framing page did not delegate it', async () => {
    browser(false);
    answers['POST /auth/login/password'] = () => [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch-9' }];
    mockFetch();
    await show();
    await signIn();
    expect(screen.getByTestId('mfa-code')).toBeTruthy();
    expect(screen.queryByTestId('mfa-passkey')).toBeNull();
  });

  it('has no button when the framing page did not delegate publickey-credentials-get', async () => {
    browser(false);
    await show();
    expect(screen.queryByTestId('signin-passkey')).toBeNull();
  });

  it('where the browser cannot tell, offers it and hides it for good after a refusal at once', async () => {
    browser(undefined);
    await show();
    get.mockRejectedValueOnce(Object.assign(new Error('not enabled in this document'), { name: 'NotAllowedError' }));
    fireEvent.click(button('signin-passkey'));
    await settle();
    expect(screen.queryByTestId('signin-passkey')).toBeNull();
    expect(screen.getByTestId('signin-password')).toBeTruthy();
  });
});


describe('the second step in the frame', () => {
  const NEED_TOTP: [number, unknown] = [403, { reason: 'NEED_TOTP_VERIFY', message: '', code: 403, challenge: 'ch-1' }];
  const code = () => screen.getByTestId('mfa-code') as HTMLInputElement;
  const verify = async (value: string) => {
    fireEvent.change(code(), { target: { value } });
    fireEvent.submit(code().form!);
    await settle();
  };

  it('an authenticator code finishes the sign-in in the frame: consent, then the ticket; NEED_TOTP_VERIFY is never posted', async () => {
    answers['POST /auth/login/password'] = () => NEED_TOTP;
    answers['POST /auth/login/totp'] = () => [200, { token: 'u1.totp' }];
    mockFetch();
    await show();
    await signIn();
    expect(post).not.toHaveBeenCalled();
    expect(screen.getByTestId('mfa-code')).toBeTruthy();
    await verify('123456');
    expect(callsTo('POST', '/auth/login/totp').map((c) => c.body)).toEqual([{ challenge: 'ch-1', code: '123456' }]);
    expect(screen.queryByTestId('mfa-code')).toBeNull();
    expect(screen.getByTestId('embedded-consent')).toBeTruthy();
    fireEvent.click(button('embedded-allow'));
    await settle();
    expect(calls.filter((c) => c.path === '/auth/login/token').map((c) => c.auth)).toEqual(['Bearer u1.totp']);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(localStorage.getItem('ciam_token')).toBe('u9.stored');
  });

  it('a backup code: the ticket straight on when the app is allowed', async () => {
    answers['POST /auth/login/password'] = () => NEED_TOTP;
    answers['POST /auth/unlockCode'] = () => [200, { token: 'u1.backup' }];
    answers[`GET ${CONTEXT_PATH}`] = () => [200, { ...CTX, granted: true }];
    mockFetch();
    await show();
    await signIn();
    fireEvent.click(screen.getByText('Backup code'));
    await verify('12345678');
    expect(callsTo('POST', '/auth/unlockCode').map((c) => c.body)).toEqual([{ challenge: 'ch-1', code: '12345678' }]);
    expect(post.mock.calls).toEqual([[{ type: 'ciam:ticket', cTicket: 'CT-1', serviceUrl: SERVICE }, ORIGIN]]);
    expect(screen.getByTestId('embedded-done')).toBeTruthy();
  });

  it('a wrong code and the lock are shown in the frame and posted as refusals; the reset opens a new window', async () => {
    const until = Math.floor(Date.now() / 1000) + 600;
    let n = 0;
    answers['POST /auth/login/password'] = () => NEED_TOTP;
    answers['POST /auth/login/totp'] = () =>
      n++ === 0
        ? [400, { reason: 'TOTP_CODE_ERROR', message: '', code: 400 }]
        : [403, { reason: 'VERIFICATION_ATTEMPT_CODE_LIMIT', message: String(until), code: 403 }];
    mockFetch();
    await show();
    await signIn();
    await verify('000000');
    const error = screen.getByTestId('mfa-error').textContent!;
    expect(error).not.toBe('');
    expect(post.mock.calls).toEqual([[{ type: 'ciam:error', reason: 'TOTP_CODE_ERROR', errMsg: error }, ORIGIN]]);
    await verify('111111');
    // The host hears the spec's sentence (it has no clock); the frame says the lock, and its clock the wait.
    expect(post.mock.calls[1]).toEqual([{ type: 'ciam:error', reason: 'VERIFICATION_ATTEMPT_CODE_LIMIT', errMsg: 'Your account has been locked, please try it in 10 minutes' }, ORIGIN]);
    expect(screen.getByTestId('mfa-error').textContent).toBe('Your account has been locked.');
    expect(screen.getByTestId('mfa-unlock-in').textContent).toMatch(/^Please try it in (9:59|10:00)\.$/);
    const reset = screen.getByTestId('lock-reset') as HTMLAnchorElement;
    expect([reset.target, reset.rel, new URL(reset.href).pathname]).toEqual(['_blank', 'noopener', '/en-US/find/password']);
    expect((screen.getByText('Verify') as HTMLButtonElement).disabled).toBe(true);
    expect(toast.current()).toHaveLength(0);
  });

  it('a staff account without a password: a message and a link to set it in a new window, and the refusal posted', async () => {
    answers['POST /auth/login/password'] = () => [403, { reason: 'EIAM_PASSWORD_UNSET', message: '', code: 403 }];
    mockFetch();
    await show();
    await signIn();
    expect(screen.getByTestId('embedded-unset').textContent).toContain('has no password here yet');
    const link = screen.getByTestId('embedded-set-password') as HTMLAnchorElement;
    expect([link.target, link.rel, new URL(link.href).pathname]).toEqual(['_blank', 'noopener', '/en-US/find/password']);
    expect(post.mock.calls.map((c) => (c[0] as { reason: string }).reason)).toEqual(['EIAM_PASSWORD_UNSET']);
  });
});

describe('the compact frame', () => {
  it("takes the host's theme, hides the site's header and footer (data-frame) and opens the password reset in a new window", async () => {
    await show(`${PATH}&theme=dark`);
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(document.documentElement.dataset.frame).toBe('compact');
    const forgot = screen.getByTestId('embedded-forgot') as HTMLAnchorElement;
    expect([forgot.target, forgot.rel, new URL(forgot.href).pathname]).toEqual(['_blank', 'noopener', '/en-US/find/password']);
    cleanup();
    expect(document.documentElement.dataset.theme).toBeUndefined();
    expect(document.documentElement.dataset.frame).toBeUndefined();
  });

  it('ignores any other theme value (the system decides)', async () => {
    await show(`${PATH}&theme=purple`);
    expect(document.documentElement.dataset.theme).toBeUndefined();
  });

  it('says which app the user continues to, with its logo at 48 px', async () => {
    answers['GET /app/language/en-US'] = () => [200, { apps: [{ appId: 'a1', name: 'Factory Portal', url: SERVICE, recommended: false, logo: 'https://cdn.example.com/logo.png' }] }];
    mockFetch();
    await show();
    expect(screen.getByTestId('partner-banner').textContent).toBe('to continue to Factory Portal');
    const img = screen.getByRole('img', { name: 'Logo of Factory Portal' }) as HTMLImageElement;
    expect([img.src, img.width, img.height]).toEqual(['https://cdn.example.com/logo.png', 48, 48]);
  });
});
