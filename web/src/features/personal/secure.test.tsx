// The Security Center against a mocked API: password, two-factor set-up and backup codes,
// marketing, privacy choices, sessions and activity.
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as toast from '../../lib/toast';
import { dateOf } from '../../components/when';
import { callsTo, errorOf, form, input, mockFetch, settle, show, state, user } from './test-kit';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OTPAUTH = `otpauth://totp/Ciam:an%40example.com?secret=${SECRET}&issuer=Ciam&algorithm=SHA1&digits=6&period=30`;
const CODES = Array.from({ length: 10 }, (_, i) => String(10_000_000 + i * 1_111_111).slice(0, 8));
const NEW_CODES = Array.from({ length: 10 }, (_, i) => String(90_000_000 - i * 1_000_003).slice(0, 8));
const AT = 1_767_225_600; // 2026-01-01T00:00:00Z

let blobs: Blob[];
let downloads: string[];

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/privacy': () => [200, { settings: { analytics: false, marketing: true }, history: [{ at: AT, changes: { marketing: true } }] }],
    'GET /auth/sessions': () => [
      200,
      {
        sessions: [
          { id: 's1', createdAt: AT, lastSeen: AT + 60, device: 'Chrome on Linux', country: 'CN', current: true },
          { id: 's2', createdAt: AT - 86_400, lastSeen: AT - 3600, device: 'Safari on iPhone', country: 'DE', current: false },
        ],
      },
    ],
    'GET /auth/activity': () => [
      200,
      { events: [{ at: AT, kind: 'totpEnabled', device: 'Chrome on Linux', country: null }, { at: AT - 60, kind: 'signIn', device: null, country: 'CN' }] },
    ],
    'GET /auth/totp/url': () => [200, { url: OTPAUTH }],
  });
  blobs = [];
  downloads = [];
  Object.assign(URL, {
    createObjectURL: vi.fn((b: Blob) => {
      blobs.push(b);
      return `blob:test/${blobs.length}`;
    }),
    revokeObjectURL: vi.fn(),
  });
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    downloads.push(this.download);
  });
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const totpForm = () => form('totp-form');

async function startEnrolment() {
  await show('/en-US/personal/secure');
  fireEvent.click(screen.getByTestId('totp-enable'));
  await settle(10);
}

describe('password', () => {
  it('the hidden username for password managers is the account signed in with here, never the masked one', async () => {
    localStorage.setItem('ciam_accounts', JSON.stringify([{ account: 'ann@example.com', lastUsed: Date.now() }]));
    await show('/en-US/personal/secure');
    const hidden = form('change-password').querySelector<HTMLInputElement>('input[name="username"]');
    expect(hidden?.value).toBe('ann@example.com');
    expect(hidden?.getAttribute('autocomplete')).toBe('username');
  });

  it('with no account known on this browser (or two that could be it) the field is left out', async () => {
    await show('/en-US/personal/secure');
    expect(form('change-password').querySelector('input[name="username"]')).toBeNull();
    cleanup();
    localStorage.setItem('ciam_accounts', JSON.stringify([
      { account: 'ann@example.com', lastUsed: Date.now() },
      { account: 'andy@example.com', lastUsed: Date.now() - 1 },
    ]));
    await show('/en-US/personal/secure');
    expect(form('change-password').querySelector('input[name="username"]')).toBeNull();
    expect(document.body.innerHTML).not.toContain('value="an***@example.com"');
  });

  it('refuses a confirmation that does not match before calling the server', async () => {
    await show('/en-US/personal/secure');
    const f = form('change-password');
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'Ciam-Demo-2028!' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/pwd')).toEqual([]);
    expect(errorOf(input(f, 'confirmPassword'))).toBe('Password does not match');
  });

  it('refuses a new password equal to the current one before calling the server', async () => {
    await show('/en-US/personal/secure');
    const f = form('change-password');
    for (const n of ['oldPassword', 'password', 'confirmPassword']) fireEvent.change(input(f, n), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/pwd')).toEqual([]);
    expect(errorOf(input(f, 'password'))).toBe('The new password must differ from your current one');
  });

  it('sends the change and shows the server field error at the new password', async () => {
    state.answers['PATCH /auth/pwd'] = () => [400, { reason: 'PASSWORD_COMPLEXITY_ERROR', message: 'Too common', code: 400, field: 'password' }];
    await show('/en-US/personal/secure');
    const f = form('change-password');
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'P@ssw0rd' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'P@ssw0rd' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/pwd').map((c) => c.body)).toEqual([{ oldPassword: 'Ciam-Demo-2026!', password: 'P@ssw0rd', confirmPassword: 'P@ssw0rd' }]);
    expect(input(f, 'password').getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(input(f, 'password'))).toBeTruthy();
  });

  it('shows PASSWORD_SAME_ERROR at the new password', async () => {
    state.answers['PATCH /auth/pwd'] = () => [400, { reason: 'PASSWORD_SAME_ERROR', message: '', code: 400 }];
    await show('/en-US/personal/secure');
    const f = form('change-password');
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.submit(f);
    await settle();
    expect(errorOf(input(f, 'password'))).toBe('New password must differ from your current one');
    expect(toast.current()).toEqual([]);
  });

  it('is closed behind its row; once changed it closes, the row says so and the focus is back on its button', async () => {
    state.answers['PATCH /auth/pwd'] = () => [200, { ok: true }];
    await show('/en-US/personal/secure');
    expect(screen.queryByTestId('change-password')).toBeNull();
    const button = screen.getByTestId('change-password-open');
    expect(button.textContent).toBe('Change password');
    const f = form('change-password');
    await settle();
    expect(document.activeElement).toBe(input(f, 'oldPassword'));
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.submit(f);
    await settle();
    expect(screen.queryByTestId('change-password')).toBeNull();
    const said = screen.getByTestId('change-password-status');
    expect(said.textContent).toBe('Your password has been changed');
    expect(said.getAttribute('role')).toBe('status');
    expect(document.activeElement).toBe(button);
    expect(toast.current()).toEqual([]);
  });
});

describe('two-factor authentication', () => {
  it('asks for the QR only after Enable, then shows the QR image and the grouped key', async () => {
    await show('/en-US/personal/secure');
    expect(callsTo('GET', '/auth/totp/url')).toEqual([]);
    fireEvent.click(screen.getByTestId('totp-enable'));
    await settle(10);
    expect(callsTo('GET', '/auth/totp/url')).toHaveLength(1);
    expect(screen.getByTestId('totp-manual-key').textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    const qr = screen.getByTestId('totp-qr') as HTMLImageElement;
    expect(qr.src).toMatch(/^data:image\/gif;base64,/);
    expect(qr.alt).toBe('QR code to add your Ciam account to an authenticator app');
    const code = screen.getByTestId('totp-code') as HTMLInputElement;
    expect(code.name).toBe('code');
  });

  it('offers "Open in authenticator app" (the otpauth URI) on a touch device only', async () => {
    await startEnrolment();
    expect(screen.queryByTestId('totp-open-app')).toBeNull();
    cleanup();
    vi.stubGlobal('matchMedia', (q: string) => ({ matches: q.includes('pointer: coarse'), media: q, addEventListener() {}, removeEventListener() {} }));
    await startEnrolment();
    const link = screen.getByRole('link', { name: 'Open in authenticator app' });
    expect(link.getAttribute('href')).toBe(OTPAUTH);
  });

  it('copies the backup codes (saying so, or how to save them when refused) and prints them', async () => {
    state.answers['POST /auth/totp/enable'] = () => [200, { backupCodes: CODES }];
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const print = vi.fn();
    vi.stubGlobal('print', print);
    await startEnrolment();
    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '123456' } });
    fireEvent.submit(totpForm());
    await settle();
    fireEvent.click(screen.getByTestId('backup-copy'));
    await settle();
    expect(writeText).toHaveBeenCalledWith(CODES.join('\n'));
    const said = screen.getByTestId('backup-said');
    expect(said.getAttribute('aria-live')).toBe('polite');
    expect(said.textContent).toBe('The backup codes have been copied. Paste them somewhere safe.');
    writeText.mockRejectedValueOnce(new DOMException('denied', 'NotAllowedError'));
    fireEvent.click(screen.getByTestId('backup-copy'));
    await settle();
    expect(said.textContent).toBe('The codes could not be copied. Select them and copy them by hand, or download them.');
    fireEvent.click(screen.getByTestId('backup-print'));
    expect(print).toHaveBeenCalledTimes(1);
    // Copied (and printed): Done closes without asking.
    fireEvent.click(screen.getByTestId('backup-done'));
    await settle();
    expect(screen.queryByTestId('backup-confirm')).toBeNull();
    expect(screen.queryByTestId('backup-codes')).toBeNull();
  });

  it('copies the secret without spaces', async () => {
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    await startEnrolment();
    fireEvent.click(screen.getByRole('button', { name: 'Copy key' }));
    await settle();
    expect(writeText).toHaveBeenCalledWith(SECRET);
  });

  it('checks the code has 6 digits, shows TOTP_SECRET_ERROR at the field, then shows the backup codes once', async () => {
    let n = 0;
    state.answers['POST /auth/totp/enable'] = () =>
      n++ === 0 ? [400, { reason: 'TOTP_SECRET_ERROR', message: '', code: 400 }] : [200, { backupCodes: CODES }];
    await startEnrolment();
    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '12a45' } });
    fireEvent.submit(totpForm());
    await settle();
    expect(errorOf(screen.getByTestId('totp-code'))).toBe('Please enter 6 digits');
    expect(callsTo('POST', '/auth/totp/enable')).toEqual([]);

    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '123456' } });
    fireEvent.submit(totpForm());
    await settle();
    expect(errorOf(screen.getByTestId('totp-code'))).toBe('Invalid two-factor code');
    expect(document.activeElement).toBe(screen.getByTestId('totp-code'));
    expect(toast.current()).toEqual([]);

    fireEvent.submit(totpForm());
    await settle();
    expect(callsTo('POST', '/auth/totp/enable').map((c) => c.body)).toEqual([{ code: '123456' }, { code: '123456' }]);
    const list = screen.getByTestId('backup-codes');
    expect([...list.querySelectorAll('li')].map((li) => li.textContent)).toEqual(CODES);
    expect(screen.getByTestId('totp-status').getAttribute('data-enabled')).toBe('true');
    expect(screen.queryByTestId('totp-manual-key')).toBeNull();
  });

  it('downloads the codes as ciam-backup-codes.txt, and Done then closes without asking', async () => {
    state.answers['POST /auth/totp/enable'] = () => [200, { backupCodes: CODES }];
    await startEnrolment();
    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '123456' } });
    fireEvent.submit(totpForm());
    await settle();
    fireEvent.click(screen.getByTestId('backup-download'));
    expect(downloads).toEqual(['ciam-backup-codes.txt']);
    const text = await new Promise<string>((resolve) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result));
      r.readAsText(blobs[0] as Blob);
    });
    expect(text?.split('\r\n').filter((l) => /^\d{8}$/.test(l))).toEqual(CODES);
    expect(text).toContain('Account: ann');
    fireEvent.click(screen.getByTestId('backup-done'));
    await settle();
    expect(screen.queryByTestId('backup-confirm')).toBeNull();
    expect(screen.queryByTestId('backup-codes')).toBeNull();
    expect(screen.getByTestId('backup-regenerate')).toBeTruthy();
    expect(document.activeElement?.id).toBe('totp-title');
    expect(screen.getByTestId('totp-disable')).toBeTruthy();
  });

  it('asks for confirmation in a dialog when Done comes before a download', async () => {
    state.answers['POST /auth/totp/enable'] = () => [200, { backupCodes: CODES }];
    await startEnrolment();
    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '123456' } });
    fireEvent.submit(totpForm());
    await settle();
    screen.getByTestId('backup-done').focus();
    fireEvent.click(screen.getByTestId('backup-done'));
    await settle();
    const dialog = screen.getByTestId('backup-confirm');
    expect(document.getElementById(dialog.getAttribute('aria-labelledby') ?? '')?.textContent).toBe('Close without saving the codes?');
    expect(dialog.getAttribute('aria-describedby')).toBeTruthy();
    // The safe choice has the focus.
    expect(document.activeElement?.textContent).toBe('Go back');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Go back' }));
    await settle();
    expect(screen.queryByTestId('backup-confirm')).toBeNull();
    expect(screen.getByTestId('backup-codes')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByTestId('backup-done'));

    fireEvent.click(screen.getByTestId('backup-done'));
    await settle();
    fireEvent.click(screen.getByTestId('backup-skip'));
    await settle();
    expect(screen.queryByTestId('backup-codes')).toBeNull();
    expect(blobs).toEqual([]);
  });

  it('proves identity when enabling needs it, then retries with the same code', async () => {
    let n = 0;
    state.answers['POST /auth/totp/enable'] = () =>
      n++ === 0 ? [403, { reason: 'REAUTH_REQUIRED', message: '', code: 403 }] : [200, { backupCodes: CODES }];
    await startEnrolment();
    fireEvent.change(screen.getByTestId('totp-code'), { target: { value: '654321' } });
    fireEvent.submit(totpForm());
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.change(within(dialog).getByLabelText('Current password'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(dialog.querySelector('form') as HTMLFormElement);
    await settle();
    expect(callsTo('POST', '/auth/totp/verify').map((c) => c.body)).toEqual([{ password: 'Ciam-Demo-2026!' }]);
    expect(callsTo('POST', '/auth/totp/enable').map((c) => c.body)).toEqual([{ code: '654321' }, { code: '654321' }]);
    expect(screen.getByTestId('backup-codes')).toBeTruthy();
  });

  it('regenerates the backup codes (the re-auth dialog asks for a code then) and shows the new ones once', async () => {
    state.answers['GET /auth/info'] = () => [200, { ...user, enableTotp: true }];
    let n = 0;
    state.answers['POST /auth/totp/backupCodes'] = () =>
      n++ === 0 ? [403, { reason: 'REAUTH_REQUIRED', message: '', code: 403 }] : [200, { backupCodes: NEW_CODES }];
    await show('/en-US/personal/secure');
    expect(screen.queryByTestId('totp-enable')).toBeNull();
    fireEvent.click(screen.getByTestId('backup-regenerate'));
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.change(within(dialog).getByLabelText('Authenticator code'), { target: { value: '111222' } });
    fireEvent.submit(dialog.querySelector('form') as HTMLFormElement);
    await settle();
    expect(callsTo('POST', '/auth/totp/verify').map((c) => c.body)).toEqual([{ code: '111222' }]);
    expect([...screen.getByTestId('backup-codes').querySelectorAll('li')].map((li) => li.textContent)).toEqual(NEW_CODES);
  });

  it('turns two-factor off after a confirmation dialog', async () => {
    state.answers['GET /auth/info'] = () => [200, { ...user, enableTotp: true }];
    await show('/en-US/personal/secure');
    fireEvent.click(screen.getByTestId('totp-disable'));
    await settle();
    expect(callsTo('POST', '/auth/totp/disable')).toEqual([]);
    fireEvent.click(screen.getByTestId('totp-disable-confirm'));
    await settle();
    expect(callsTo('POST', '/auth/totp/disable')).toHaveLength(1);
    expect(screen.getByTestId('totp-status').getAttribute('data-enabled')).toBe('false');
    expect(screen.getByTestId('totp-enable')).toBeTruthy();
    // Said under the status line, where the person is (a polite status), not in a toast.
    const said = screen.getByTestId('totp-said');
    expect(said.textContent).toBe('Two-factor authentication is off');
    expect(said.getAttribute('role')).toBe('status');
    expect(toast.current()).toEqual([]);
  });

  it('reloads the account when the API reports USER_TOTP_ENABLED', async () => {
    await show('/en-US/personal/secure');
    state.answers['GET /auth/info'] = () => [200, { ...user, enableTotp: true }];
    state.answers['GET /auth/totp/url'] = () => [409, { reason: 'USER_TOTP_ENABLED', message: '', code: 409 }];
    fireEvent.click(screen.getByTestId('totp-enable'));
    await settle(10);
    expect(callsTo('GET', '/auth/info')).toHaveLength(2);
    expect(screen.getByTestId('totp-status').getAttribute('data-enabled')).toBe('true');
    expect(screen.getByTestId('backup-regenerate')).toBeTruthy();
  });
});

describe('marketing, privacy, sessions and activity', () => {
  it('saves the marketing opt-in as it is ticked', async () => {
    state.answers['PATCH /auth/advertisement'] = () => [200, { ...user, advertisement: 'subscribe', isSubscribe: true }];
    await show('/en-US/personal/secure');
    const box = screen.getByTestId('advertisement') as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    await settle();
    expect(callsTo('PATCH', '/auth/advertisement').map((c) => c.body)).toEqual([{ advertisement: 'subscribe' }]);
    expect((screen.getByTestId('advertisement') as HTMLInputElement).checked).toBe(true);
  });

  it('shows the marketing choice at once and puts it back when saving fails', async () => {
    state.answers['PATCH /auth/advertisement'] = () => [500, { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 500 }];
    await show('/en-US/personal/secure');
    const box = screen.getByTestId('advertisement') as HTMLInputElement;
    fireEvent.click(box);
    expect(box.checked).toBe(true);
    expect(box.getAttribute('aria-busy')).toBe('true');
    await settle();
    expect((screen.getByTestId('advertisement') as HTMLInputElement).checked).toBe(false);
    // Said atop the section of the control used, focused, not in a toast (issue 34 item 5).
    expect(toast.current()).toEqual([]);
    const said = document.activeElement as HTMLElement;
    expect(said.dataset.testid).toMatch(/-error$/);
    expect(said.textContent).toBe('Internal server error');
  });

  it('shows the privacy choices and their history, and sends only what changed', async () => {
    state.answers['PATCH /auth/privacy'] = () => [
      200,
      { settings: { analytics: true, marketing: true }, history: [{ at: AT + 10, changes: { analytics: true } }, { at: AT, changes: { marketing: true } }] },
    ];
    await show('/en-US/personal/secure');
    // Closed behind its row, which says the choices in one line.
    expect(screen.getByTestId('privacy-summary').textContent).toBe('Analytics: off · Marketing: on');
    expect(screen.queryByTestId('privacy-form')).toBeNull();
    const f = form('privacy-form');
    expect(input(f, 'analytics').checked).toBe(false);
    expect(input(f, 'marketing').checked).toBe(true);
    const history = screen.getByTestId('privacy-history');
    expect(history.querySelector('time')?.getAttribute('dateTime')).toBe('2026-01-01T00:00:00.000Z');
    expect(history.textContent).toContain('Marketing turned on');
    fireEvent.click(input(f, 'analytics'));
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/privacy').map((c) => c.body)).toEqual([{ analytics: true }]);
    expect(screen.getByTestId('privacy-history').querySelectorAll('li')).toHaveLength(2);
    expect(screen.getByTestId('privacy-history').querySelector('li')?.textContent).toContain('Analytics turned on');
    expect(screen.getByTestId('privacy-summary').textContent).toBe('Analytics: on · Marketing: on');
  });

  it('says the choices could not be loaded (no toast) and retries on request', async () => {
    state.answers['GET /auth/privacy'] = () => [404, { reason: 'NOT_FOUND', message: '', code: 404 }];
    await show('/en-US/personal/secure');
    expect(screen.getByTestId('privacy').textContent).toContain('Your privacy choices could not be loaded.');
    expect(toast.current()).toEqual([]);
    state.answers['GET /auth/privacy'] = () => [200, { settings: { analytics: true, marketing: false }, history: [] }];
    fireEvent.click(within(screen.getByTestId('privacy')).getByRole('button', { name: 'Try again' }));
    await settle();
    expect(input(form('privacy-form'), 'analytics').checked).toBe(true);
  });

  it('lists the sessions, signs another device out, and signing out here ends the session', async () => {
    const router = await show('/en-US/personal/secure');
    const list = screen.getByTestId('sessions');
    expect(list.querySelectorAll('li')).toHaveLength(2);
    expect(list.querySelector('li[data-current]')?.textContent).toContain('This device');
    expect(list.textContent).toContain('Safari on iPhone · Germany');
    fireEvent.click(within(list).getByRole('button', { name: 'Sign out' }));
    // A destructive action asks first; Cancel leaves the session alone.
    fireEvent.click(within(screen.getByTestId('session-revoke-dialog')).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('session-revoke-dialog')).toBeNull();
    expect(callsTo('DELETE', '/auth/sessions/s2')).toHaveLength(0);
    fireEvent.click(within(list).getByRole('button', { name: 'Sign out' }));
    expect(screen.getByTestId('session-revoke-dialog').textContent).toContain('Safari on iPhone · Germany');
    fireEvent.click(screen.getByTestId('session-revoke-confirm'));
    await settle();
    expect(callsTo('DELETE', '/auth/sessions/s2')).toHaveLength(1);
    expect(screen.getByTestId('sessions').querySelectorAll('li')).toHaveLength(1);
    fireEvent.click(within(screen.getByTestId('sessions')).getByRole('button', { name: 'Sign out here' }));
    fireEvent.click(screen.getByTestId('session-revoke-confirm'));
    await settle();
    expect(callsTo('DELETE', '/auth/sessions/s1')).toHaveLength(1);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/en-US/passport/signin');
  });

  it('names each activity in the page language', async () => {
    await show('/zh-CN/personal/secure', 'zh-CN');
    const items = [...screen.getByTestId('activity').querySelectorAll('li')];
    expect(items.map((li) => li.querySelector('strong')?.textContent)).toEqual(['开启了两步验证', '登录']);
    expect(items[1]?.textContent).toContain('未知设备 · 中国');
  });

  it('links the deactivation section to the deactivation page', async () => {
    await show('/en-US/personal/secure');
    expect(screen.getByRole('link', { name: 'What deactivation means' }).getAttribute('href')).toBe('/en-US/logout');
  });
});

describe('time', () => {
  it('reads the API instants as unix seconds', () => {
    expect(dateOf(AT)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(dateOf(AT * 1000)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(dateOf(0)).toBeNull();
    expect(dateOf(undefined)).toBeNull();
  });
});
