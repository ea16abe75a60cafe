// The security centre's Passkeys section against a mocked API and navigator.credentials: the list
// and its badges, adding (with the fresh proof first), the refusals and the quiet cancellation,
// the limit, rename in the row, remove after a confirmation with a passkey as the fresh proof,
// and the section gone when the server has no passkeys.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetGate } from '../../lib/passkey-gate';
import * as toast from '../../lib/toast';
import { inTurn, type Reply } from '../../testing/fake-api';
import { resetApp } from '../../testing/render-app';
import { callsTo, input, mockFetch, settle, show, state, user } from './test-kit';

const AT = 1_767_225_600;
const LIST = [
  { id: 'k2', name: 'iCloud Keychain', createdAt: AT, lastUsedAt: AT + 60, backupEligible: true, backupState: true, transports: ['internal', 'hybrid'] },
  { id: 'k1', name: 'YubiKey 5', createdAt: AT - 86_400, backupEligible: false, backupState: false, transports: ['usb'] },
];
const CREATE_OPTIONS = { passkeyChallenge: 'PC', publicKey: { challenge: 'AQID', rp: { name: 'Ciam' }, user: { id: 'dTE', name: 'ann', displayName: 'Ann' }, pubKeyCredParams: [] } };
const REQUEST_OPTIONS = { passkeyChallenge: 'PR', publicKey: { challenge: 'AQID', rpId: 'localhost', allowCredentials: [{ id: 'AQI', type: 'public-key' }] } };
const CRED = { id: 'AQI', rawId: new Uint8Array([1, 2]).buffer, type: 'public-key', toJSON: () => ({ id: 'AQI', rawId: 'AQI', type: 'public-key', response: {} }) };
const REAUTH: Reply = [403, { reason: 'REAUTH_REQUIRED', message: '', code: 403 }];
const named = (name: string) => Object.assign(new Error(name), { name });

let creds: { get: ReturnType<typeof vi.fn>; create: ReturnType<typeof vi.fn> };

function browser(withPasskeys = true) {
  creds = { get: vi.fn(async () => CRED), create: vi.fn(async () => CRED) };
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: creds });
  if (withPasskeys) vi.stubGlobal('PublicKeyCredential', class {});
}

beforeEach(() => {
  resetGate();
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/passkeys': () => [200, { passkeys: LIST }],
    'POST /auth/passkeys/options': () => [200, CREATE_OPTIONS],
    'POST /auth/passkeys': () => [200, { id: 'k3', name: 'Chrome on Linux' }],
    'POST /auth/reauth/passkey/options': () => [200, REQUEST_OPTIONS],
    'POST /auth/reauth/passkey': () => [200, { ok: true }],
  });
});
afterEach(() => {
  resetApp();
  for (const t of toast.current()) toast.dismiss(t.id);
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: undefined });
});

const section = () => screen.getByTestId('passkeys');
const rows = () => within(section()).getAllByTestId('passkey');

// The lazy passkey chunk, loaded once up front: its first import() may outlast settle()'s rounds.
beforeAll(async () => {
  await import('../../lib/passkey');
});

describe('passkeys in the security centre', () => {
  it('lists each passkey with its dates and whether it is synced, under its own navigation entry', async () => {
    browser();
    await show('/en-US/personal/secure#passkeys');
    expect(within(section()).getByRole('heading', { level: 2 }).textContent).toBe('Passkeys');
    expect(screen.getByTestId('passkeys-count').textContent).toBe('2 passkeys');
    expect(rows().map((r) => within(r).getByTestId('passkey-kind').textContent)).toEqual(['Synced', 'On one device']);
    expect(rows()[0]!.textContent).toContain('iCloud Keychain');
    expect(rows()[0]!.textContent).toContain('Last used');
    expect(rows()[1]!.textContent).toContain('Not used yet');
    expect(within(rows()[1]!).getByRole('button', { name: 'Remove YubiKey 5' })).toBeTruthy();
    const link = within(screen.getByTestId('centre-nav')).getByRole('link', { name: 'Passkeys' });
    expect(link.getAttribute('href')).toBe('/en-US/personal/secure#passkeys');
    expect(link.getAttribute('aria-current')).toBe('location');
  });

  it('adds a passkey after the fresh proof, and lists it with the name the server gave', async () => {
    browser();
    state.answers['POST /auth/passkeys/options'] = inTurn(REAUTH, [200, CREATE_OPTIONS]);
    await show('/en-US/personal/secure');
    state.answers['GET /auth/passkeys'] = () => [200, { passkeys: [{ id: 'k3', name: 'Chrome on Linux', createdAt: AT + 120 }, ...LIST] }];
    fireEvent.click(screen.getByRole('button', { name: 'Add a passkey' }));
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.change(input(dialog.querySelector('form')!, 'password'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(dialog.querySelector('form')!);
    await settle();
    expect(creds.create).toHaveBeenCalledTimes(1);
    expect(callsTo('POST', '/auth/passkeys')[0]!.body).toEqual({ passkeyChallenge: 'PC', credential: { id: 'AQI', rawId: 'AQI', type: 'public-key', response: {} } });
    expect(rows()[0]!.textContent).toContain('Chrome on Linux');
    // Said in the section, under its buttons (a polite status), not in a toast at the top.
    expect(screen.getByTestId('passkeys-note').textContent).toBe('Passkey added');
    expect(screen.getByTestId('passkeys-note').getAttribute('role')).toBe('status');
    expect(toast.current()).toEqual([]);
  });

  it('shows PASSKEY_EXISTS in the section and a cancelled prompt quietly', async () => {
    browser();
    await show('/en-US/personal/secure');
    creds.create.mockRejectedValueOnce(named('NotAllowedError'));
    fireEvent.click(screen.getByTestId('passkey-add'));
    await settle();
    const note = screen.getByTestId('passkeys-note');
    expect(note.getAttribute('role')).toBe('status');
    expect(note.textContent).toBe('No passkey was added: the request was cancelled.');
    state.answers['POST /auth/passkeys'] = () => [409, { reason: 'PASSKEY_EXISTS', message: '', code: 409 }];
    fireEvent.click(screen.getByTestId('passkey-add'));
    await settle();
    expect(note.getAttribute('role')).toBe('alert');
    expect(note.textContent).toBe('This passkey is already registered');
    expect(toast.current()).toHaveLength(0);
  });

  it('turns "Add" off at 10 with the reason, and hides it without PublicKeyCredential', async () => {
    browser();
    state.answers['GET /auth/passkeys'] = () => [200, { passkeys: Array.from({ length: 10 }, (_, i) => ({ ...LIST[1], id: `k${i}`, name: `Key ${i}` })) }];
    await show('/en-US/personal/secure');
    const add = screen.getByTestId('passkey-add') as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    expect(document.getElementById(add.getAttribute('aria-describedby')!)?.textContent).toBe(
      'You have 10 passkeys, the most an account can have. Remove one to add another.',
    );
    resetApp();
    vi.unstubAllGlobals();
    mockFetch({ 'GET /auth/info': () => [200, user], 'GET /auth/passkeys': () => [200, { passkeys: LIST }] });
    localStorage.setItem('ciam_token', 'u1.token');
    localStorage.setItem('lastActionTime', String(Date.now()));
    await show('/en-US/personal/secure');
    expect(rows()).toHaveLength(2);
    expect(screen.queryByTestId('passkey-add')).toBeNull();
  });

  it('renames in the row', async () => {
    browser();
    state.answers['PATCH /auth/passkeys/k1'] = () => [200, { id: 'k1', name: 'Desk key' }];
    await show('/en-US/personal/secure');
    fireEvent.click(within(rows()[1]!).getByTestId('passkey-rename'));
    const f = screen.getByTestId('passkey-rename-form') as HTMLFormElement;
    const name = input(f, 'passkeyName');
    fireEvent.change(name, { target: { value: '  ' } });
    fireEvent.submit(f);
    await settle();
    expect(f.textContent).toContain('Enter a name of 1 to 64 characters');
    fireEvent.change(name, { target: { value: 'Desk key' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/passkeys/k1')[0]!.body).toEqual({ name: 'Desk key' });
    expect(screen.queryByTestId('passkey-rename-form')).toBeNull();
    expect(rows()[1]!.textContent).toContain('Desk key');
  });

  it('removes after a confirmation, with a passkey as the fresh proof', async () => {
    browser();
    state.answers['DELETE /auth/passkeys/k1'] = inTurn(REAUTH, [200, {}]) // 204 on the wire; a Response mock cannot carry a body with 204;
    await show('/en-US/personal/secure');
    fireEvent.click(within(rows()[1]!).getByTestId('passkey-remove'));
    const confirm = screen.getByTestId('passkey-remove-dialog');
    expect(confirm.textContent).toContain('YubiKey 5');
    fireEvent.click(within(confirm).getByTestId('passkey-remove-confirm'));
    await settle();
    fireEvent.click(within(screen.getByTestId('reauth-dialog')).getByTestId('reauth-passkey'));
    await settle();
    expect(creds.get).toHaveBeenCalledTimes(1);
    expect(callsTo('POST', '/auth/reauth/passkey')[0]!.body).toMatchObject({ passkeyChallenge: 'PR' });
    expect(callsTo('DELETE', '/auth/passkeys/k1')).toHaveLength(2);
    expect(rows()).toHaveLength(1);
    expect(screen.queryByTestId('reauth-dialog')).toBeNull();
  });

  it('keeps the reauth dialog open on a cancelled passkey, and hides its choice when the account has none', async () => {
    browser();
    state.answers['DELETE /auth/passkeys/k1'] = inTurn(REAUTH);
    await show('/en-US/personal/secure');
    fireEvent.click(within(rows()[1]!).getByTestId('passkey-remove'));
    fireEvent.click(screen.getByTestId('passkey-remove-confirm'));
    await settle();
    creds.get.mockRejectedValueOnce(named('NotAllowedError'));
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.click(within(dialog).getByTestId('reauth-passkey'));
    await settle();
    expect(dialog.textContent).toContain('The passkey was not used');
    state.answers['POST /auth/reauth/passkey/options'] = () => [404, { reason: 'PASSKEY_NOT_FOUND', message: '', code: 404 }];
    fireEvent.click(within(dialog).getByTestId('reauth-passkey'));
    await settle();
    expect(within(dialog).queryByTestId('reauth-passkey')).toBeNull();
    expect(callsTo('DELETE', '/auth/passkeys/k1')).toHaveLength(1);
  });

  it('is gone, navigation entry included, when the server has no passkeys', async () => {
    browser();
    state.answers['GET /auth/passkeys'] = () => [503, { reason: 'PASSKEY_UNAVAILABLE', message: '', code: 503 }];
    await show('/en-US/personal/secure');
    expect(screen.queryByTestId('passkeys')).toBeNull();
    expect(within(screen.getByTestId('centre-nav')).queryByRole('link', { name: 'Passkeys' })).toBeNull();
    expect(screen.queryByTestId('reauth-passkey')).toBeNull();
  });
});
