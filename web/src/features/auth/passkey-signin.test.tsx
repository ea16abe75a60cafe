// Passkeys on the sign-in screen and in the two-factor dialog, against a mocked API and a mocked
// navigator.credentials: the button, conditional mediation (and its abort before a modal
// request), the way on after sign-in (like a password sign-in), cancellation, the unavailable
// server, and the dialog's "Use a passkey".
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MfaHost } from '../../components/mfa-host';
import * as mfa from '../../lib/mfa';
import { resetGate } from '../../lib/passkey-gate';
import { type Answer, fakeApi, type FakeApi } from '../../testing/fake-api';
import { at, renderApp, resetApp, settle } from '../../testing/render-app';
import SignIn from './signin';
import { REFRESH_MS } from './passkey-signin';

const OPTIONS = { passkeyChallenge: 'PC', publicKey: { challenge: 'AQID', rpId: 'localhost' } };
const ASSERTION = { id: 'AQI', rawId: new Uint8Array([1, 2]).buffer, type: 'public-key', toJSON: () => ({ id: 'AQI', rawId: 'AQI', type: 'public-key', response: {} }) };
const named = (name: string) => Object.assign(new Error(name), { name });

let api: FakeApi;
let get: ReturnType<typeof vi.fn<(o: CredentialRequestOptions) => Promise<unknown>>>;
let conditionalAvailable = false;

function browser(withPasskeys = true) {
  get = vi.fn(async () => ASSERTION);
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: { get } });
  if (withPasskeys) vi.stubGlobal('PublicKeyCredential', Object.assign(class {}, { isConditionalMediationAvailable: async () => conditionalAvailable }));
}

async function show(answers: Record<string, Answer>, search = '') {
  api = fakeApi({
    'POST /auth/login/passkey/options': () => [200, OPTIONS],
    'POST /auth/login/passkey': () => [200, { token: 'u1.pk', userId: 'u1', expiresAt: 1 }],
    ...answers,
  });
  return renderApp(
    [
      { path: '/:language/passport/signin', element: <><SignIn /><MfaHost /></> },
      { path: '/:language/personal/info', element: <p>centre</p> },
      { path: '/:language/passport/authorize', element: <p>authorize</p> },
    ],
    `/en-US/passport/signin${search}`,
  );
}

beforeEach(() => {
  resetGate();
  conditionalAvailable = false;
  vi.stubGlobal('requestIdleCallback', (f: () => void) => setTimeout(f, 1));
});
afterEach(() => {
  resetApp();
  mfa.close();
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: undefined });
  vi.useRealTimers();
});

// The lazy passkey chunk, loaded once up front: its first import() may outlast settle()'s rounds.
beforeAll(async () => {
  await import('../../lib/passkey');
});

describe('sign in with a passkey', () => {
  it('has no button without PublicKeyCredential, and the account field asks for webauthn autofill', async () => {
    browser(false);
    await show({});
    expect(screen.queryByTestId('signin-passkey')).toBeNull();
    const account = (screen.getByTestId('signin-password') as HTMLFormElement).elements.namedItem('account') as HTMLInputElement;
    expect(account.getAttribute('autocomplete')).toBe('username webauthn');
  });

  it('signs in with the button and goes on like a password sign-in', async () => {
    browser();
    const router = await show({});
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await settle();
    expect(get).toHaveBeenCalledTimes(1);
    expect(get.mock.calls[0]![0].mediation).toBeUndefined();
    expect(api.callsTo('POST', '/auth/login/passkey')[0]!.body).toEqual({ passkeyChallenge: 'PC', credential: { id: 'AQI', rawId: 'AQI', type: 'public-key', response: {} } });
    expect(localStorage.getItem('ciam_token')).toBe('u1.pk');
    expect(at(router)).toBe('/en-US/personal/info');
  });

  it("goes on to a partner's consent like a password sign-in", async () => {
    browser();
    const router = await show({}, '?appId=a1&serviceUrl=https://app.example.com/cb');
    fireEvent.click(screen.getByTestId('signin-passkey'));
    await settle();
    expect(at(router)).toBe('/en-US/passport/authorize?appId=a1&serviceUrl=https://app.example.com/cb');
  });

  it('says quietly that it was cancelled, and shows a refusal as an alert', async () => {
    browser();
    await show({ 'POST /auth/login/passkey': () => [404, { reason: 'PASSKEY_NOT_FOUND', code: 404, message: '' }] });
    get.mockRejectedValueOnce(named('NotAllowedError'));
    fireEvent.click(screen.getByTestId('signin-passkey'));
    await settle();
    const note = screen.getByTestId('passkey-note');
    expect(note.getAttribute('role')).toBe('status');
    expect(note.textContent).toBe('Passkey sign-in was cancelled.');
    fireEvent.click(screen.getByTestId('signin-passkey'));
    await settle();
    expect(note.getAttribute('role')).toBe('alert');
    expect(note.textContent).not.toBe('');
    expect(localStorage.getItem('ciam_token')).toBeNull();
  });

  it('hides every passkey control for the page when the server has none', async () => {
    browser();
    await show({ 'POST /auth/login/passkey/options': () => [503, { reason: 'PASSKEY_UNAVAILABLE', code: 503, message: '' }] });
    fireEvent.click(screen.getByTestId('signin-passkey'));
    await settle();
    expect(screen.queryByTestId('signin-passkey')).toBeNull();
  });

  it('starts one conditional request after first paint and signs in with its answer', async () => {
    browser();
    conditionalAvailable = true;
    let answer: (c: unknown) => void = () => {};
    get.mockImplementationOnce(() => new Promise((r) => (answer = r)));
    const router = await show({});
    await vi.waitFor(() => expect(get.mock.calls.some((c) => c[0].mediation === 'conditional')).toBe(true));
    expect(get.mock.calls.filter((c) => c[0].mediation === 'conditional')).toHaveLength(1);
    answer(ASSERTION);
    await settle();
    expect(at(router)).toBe('/en-US/personal/info');
  });

  it('aborts the conditional request before the modal one, and when the screen goes', async () => {
    browser();
    conditionalAvailable = true;
    const signals: AbortSignal[] = [];
    get.mockImplementation((o) => {
      signals.push(o.signal!);
      return o.mediation === 'conditional'
        ? new Promise((_, fail) => o.signal?.addEventListener('abort', () => fail(named('AbortError'))))
        : Promise.reject(named('NotAllowedError'));
    });
    await show({});
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    fireEvent.click(screen.getByTestId('signin-passkey'));
    await settle();
    expect(signals[0]!.aborted).toBe(true);
    // After the modal request, the autofill request is back.
    await vi.waitFor(() => expect(get.mock.calls.filter((c) => c[0].mediation === 'conditional')).toHaveLength(2));
    const last = get.mock.calls.at(-1)![0].signal!;
    resetApp();
    expect(last.aborted).toBe(true);
  });
});

describe('conditional mediation renewal', () => {
  it('renews the autofill request with new options after 4.5 minutes', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    browser();
    conditionalAvailable = true;
    get.mockImplementation((o) => new Promise((_, fail) => o.signal?.addEventListener('abort', () => fail(named('AbortError')))));
    await show({});
    await vi.waitFor(() => expect(get).toHaveBeenCalledTimes(1));
    const first = get.mock.calls[0]![0].signal!;
    expect(REFRESH_MS).toBe(270_000);
    vi.advanceTimersByTime(REFRESH_MS - 1000);
    expect(first.aborted).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(first.aborted).toBe(true);
    await vi.waitFor(() => expect(get).toHaveBeenCalledTimes(2));
    expect(get.mock.calls[1]![0].mediation).toBe('conditional');
    expect(api.callsTo('POST', '/auth/login/passkey/options')).toHaveLength(2);
  });
});

describe('two-factor dialog', () => {
  it('signs in with "Use a passkey" and remembers the account of the password step', async () => {
    browser();
    const router = await show({
      'POST /auth/login/passkey/mfa/options': () => [200, OPTIONS],
      'POST /auth/login/passkey/mfa': () => [200, { token: 'u1.mfa' }],
    });
    mfa.signingIn('ann@example.com');
    mfa.open('ch1');
    await settle();
    const dialog = screen.getByTestId('mfa-code').closest('dialog')!;
    const choice = within(dialog).getByTestId('mfa-passkey');
    expect(choice.textContent).toBe('Use a passkey');
    fireEvent.click(choice);
    await settle();
    expect(api.callsTo('POST', '/auth/login/passkey/mfa')[0]!.body).toMatchObject({ challenge: 'ch1', passkeyChallenge: 'PC' });
    expect(localStorage.getItem('ciam_token')).toBe('u1.mfa');
    expect(at(router)).toBe('/en-US/personal/info');
    expect(localStorage.getItem('ciam_accounts')).toContain('ann@example.com');
  });

  it('shows a refusal in the dialog and hides the choice when the account has no passkey', async () => {
    browser();
    await show({ 'POST /auth/login/passkey/mfa/options': () => [404, { reason: 'PASSKEY_NOT_FOUND', code: 404, message: '' }] });
    mfa.open('ch1');
    await settle();
    const dialog = screen.getByTestId('mfa-code').closest('dialog')!;
    fireEvent.click(within(dialog).getByTestId('mfa-passkey'));
    await settle();
    expect(within(dialog).getByTestId('mfa-error').textContent).not.toBe('');
    expect(within(dialog).queryByTestId('mfa-passkey')).toBeNull();
    expect(document.activeElement?.getAttribute('data-testid')).toBe('mfa-code');
  });
});
