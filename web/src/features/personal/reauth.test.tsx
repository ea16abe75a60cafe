// The re-authentication flow against a mocked fetch: REAUTH_REQUIRED opens the proof, the proof
// is POST /auth/totp/verify without empty fields, and the action is sent again by itself.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { createIntl, createIntlCache, type MessageFormatElement, RawIntlProvider } from 'react-intl';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, type Result } from '../../lib/api';
import * as toast from '../../lib/toast';
import { en } from '../../testing/messages';
import { withoutEmpty } from '../../lib/proof';
import { useReauth, withReauth } from './reauth';

type Call = { method: string; path: string; body: unknown };
let calls: Call[];
let queue: Record<string, [number, unknown][]>;

const REAUTH: [number, unknown] = [403, { reason: 'REAUTH_REQUIRED', message: 'Please confirm it is you', code: 403 }];

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  calls = [];
  queue = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/ciam/v1', '');
      const method = init.method ?? 'GET';
      calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined });
      const [status, body] = queue[`${method} ${path}`]?.shift() ?? [200, { ok: true }];
      return new Response(JSON.stringify(body), { status });
    }),
  );
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
});

const disable = () => api.post('/auth/totp/disable', {}, { skipErrorHandler: true });

describe('withReauth', () => {
  it('proves identity on REAUTH_REQUIRED and sends the action again', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH, [200, { ok: true }]];
    const prove = vi.fn(async () => (await api.post('/auth/totp/verify', withoutEmpty({ password: 'Ciam-Demo-2026!', code: '' }), { skipErrorHandler: true })).success);
    const res = await withReauth(disable, prove);
    expect(res).toEqual({ success: true, data: { ok: true } });
    expect(prove).toHaveBeenCalledTimes(1);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /auth/totp/disable', 'POST /auth/totp/verify', 'POST /auth/totp/disable']);
    expect(calls[1]?.body).toEqual({ password: 'Ciam-Demo-2026!' });
  });

  it('does not send the action again when the proof is cancelled', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH];
    const res = await withReauth(disable, async () => false);
    expect(res).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(['/auth/totp/disable']);
  });

  it('asks for nothing when the action succeeds or fails for another reason', async () => {
    const prove = vi.fn(async () => true);
    expect((await withReauth(disable, prove))?.success).toBe(true);
    queue['POST /auth/totp/disable'] = [[409, { reason: 'USER_TOTP_NOT_ENABLED', message: '', code: 409 }]];
    const res = await withReauth(disable, prove);
    expect(res).toMatchObject({ success: false, error: { reason: 'USER_TOTP_NOT_ENABLED' } });
    expect(prove).not.toHaveBeenCalled();
  });

  it('asks only once: a second REAUTH_REQUIRED is the caller’s to handle', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH, REAUTH];
    const prove = vi.fn(async () => true);
    const res = await withReauth(disable, prove);
    expect(res).toMatchObject({ success: false, error: { reason: 'REAUTH_REQUIRED' } });
    expect(prove).toHaveBeenCalledTimes(1);
  });
});

function Harness({ twoFactor }: { twoFactor: boolean }) {
  const { guard, dialog } = useReauth(twoFactor);
  const [out, setOut] = useState('');
  const run = async () => {
    const res: Result<unknown> | null = await guard(disable);
    setOut(res === null ? 'cancelled' : res.success ? 'done' : res.error.reason);
  };
  return (
    <>
      <button type="button" onClick={() => void run()}>
        run
      </button>
      <output data-testid="out">{out}</output>
      {dialog}
    </>
  );
}

async function settle() {
  for (let i = 0; i < 5; i++) await act(async () => new Promise((r) => setTimeout(r, 5)));
}

function show(twoFactor: boolean) {
  const intl = createIntl({ locale: 'en-US', messages: en as unknown as Record<string, MessageFormatElement[]>, onError: () => {} }, createIntlCache());
  render(
    <RawIntlProvider value={intl}>
      <Harness twoFactor={twoFactor} />
    </RawIntlProvider>,
  );
}

const dialogInput = (name: string) => screen.getByTestId('reauth-dialog').querySelector<HTMLInputElement>(`input[name="${name}"]`) as HTMLInputElement;
const errorOf = (el: HTMLElement) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent;

describe('the re-authentication dialog', () => {
  it('asks for the password, shows a wrong one at the field, then retries the action', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH, [200, { ok: true }]];
    queue['POST /auth/totp/verify'] = [[401, { reason: 'PASSWORD_ERROR', message: 'Incorrect account or password', code: 401 }], [200, { ok: true }]];
    show(false);
    const trigger = screen.getByRole('button', { name: 'run' });
    trigger.focus();
    fireEvent.click(trigger);
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    expect(dialog.getAttribute('aria-labelledby')).toBeTruthy();
    expect(document.getElementById(dialog.getAttribute('aria-labelledby') ?? '')?.textContent).toBe('Confirm it is you');
    const pw = dialogInput('password');
    expect(document.activeElement).toBe(pw);
    expect(pw.type).toBe('password');

    fireEvent.submit(pw.form as HTMLFormElement);
    await settle();
    expect(errorOf(pw)).toBe('Enter your current password');
    expect(calls.filter((c) => c.path === '/auth/totp/verify')).toEqual([]);

    fireEvent.change(pw, { target: { value: 'wrong-Pass-1!' } });
    fireEvent.submit(pw.form as HTMLFormElement);
    await settle();
    expect(errorOf(dialogInput('password'))).toBe('The password is not correct');
    expect(screen.getByTestId('out').textContent).toBe('');

    fireEvent.change(dialogInput('password'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(dialogInput('password').form as HTMLFormElement);
    await settle();
    expect(screen.queryByTestId('reauth-dialog')).toBeNull();
    expect(screen.getByTestId('out').textContent).toBe('done');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /auth/totp/disable',
      'POST /auth/totp/verify',
      'POST /auth/totp/verify',
      'POST /auth/totp/disable',
    ]);
    expect(calls[2]?.body).toEqual({ password: 'Ciam-Demo-2026!' });
    expect(document.activeElement).toBe(trigger);
    expect(toast.current()).toEqual([]);
  });

  it('asks for the authenticator code when two-factor is on and sends only {code}', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH, [200, { ok: true }]];
    show(true);
    fireEvent.click(screen.getByRole('button', { name: 'run' }));
    await settle();
    expect(screen.getByTestId('reauth-dialog').querySelector('input[name="password"]')).toBeNull();
    const code = dialogInput('code');
    fireEvent.change(code, { target: { value: '12 34' } });
    fireEvent.submit(code.form as HTMLFormElement);
    await settle();
    expect(errorOf(dialogInput('code'))).toBe('Please enter 6 digits');
    fireEvent.change(dialogInput('code'), { target: { value: '123456' } });
    fireEvent.submit(dialogInput('code').form as HTMLFormElement);
    await settle();
    expect(calls.find((c) => c.path === '/auth/totp/verify')?.body).toEqual({ code: '123456' });
    expect(screen.getByTestId('out').textContent).toBe('done');
  });

  it('Cancel and Escape end the flow without sending the action again', async () => {
    queue['POST /auth/totp/disable'] = [REAUTH, REAUTH];
    show(false);
    fireEvent.click(screen.getByRole('button', { name: 'run' }));
    await settle();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await settle();
    expect(screen.queryByTestId('reauth-dialog')).toBeNull();
    expect(screen.getByTestId('out').textContent).toBe('cancelled');

    fireEvent.click(screen.getByRole('button', { name: 'run' }));
    await settle();
    fireEvent(screen.getByTestId('reauth-dialog'), new Event('cancel', { cancelable: true }));
    await settle();
    expect(screen.queryByTestId('reauth-dialog')).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(['/auth/totp/disable', '/auth/totp/disable']);
  });
});
