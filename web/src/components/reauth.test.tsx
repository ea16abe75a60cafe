// The re-authentication flow against a mocked fetch: REAUTH_REQUIRED opens the proof, the proof
// is POST /auth/totp/verify without empty fields, and the action is sent again by itself.
import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, type Result } from '../lib/api';
import * as toast from '../lib/toast';
import { type Answer, type Call, fakeApi, inTurn, type Reply } from '../testing/fake-api';
import { renderWithIntl, resetApp, settle } from '../testing/render-app';
import { withoutEmpty } from '../lib/proof';
import { useReauth, withReauth } from './reauth';

let calls: Call[];
let answers: Record<string, Answer>;
const REAUTH: Reply = [403, { reason: 'REAUTH_REQUIRED', message: 'Please confirm it is you', code: 403 }];

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  // Unanswered calls succeed: 200 {ok: true}.
  ({ calls, answers } = fakeApi());
});
afterEach(resetApp);

const disable = () => call('POST /auth/totp/disable', {}, { skipErrorHandler: true });

describe('withReauth', () => {
  it('proves identity on REAUTH_REQUIRED and sends the action again', async () => {
    answers['POST /auth/totp/disable'] = inTurn(REAUTH, [200, { ok: true }]);
    const prove = vi.fn(async () => (await call('POST /auth/totp/verify', { body: withoutEmpty({ password: 'Ciam-Demo-2026!', code: '' }) }, { skipErrorHandler: true })).success);
    const res = await withReauth(disable, prove);
    expect(res).toEqual({ success: true, data: { ok: true } });
    expect(prove).toHaveBeenCalledTimes(1);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /auth/totp/disable', 'POST /auth/totp/verify', 'POST /auth/totp/disable']);
    expect(calls[1]?.body).toEqual({ password: 'Ciam-Demo-2026!' });
  });

  it('does not send the action again when the proof is cancelled', async () => {
    answers['POST /auth/totp/disable'] = inTurn(REAUTH);
    const res = await withReauth(disable, async () => false);
    expect(res).toBeNull();
    expect(calls.map((c) => c.path)).toEqual(['/auth/totp/disable']);
  });

  it('asks for nothing when the action succeeds or fails for another reason', async () => {
    const prove = vi.fn(async () => true);
    expect((await withReauth(disable, prove))?.success).toBe(true);
    answers['POST /auth/totp/disable'] = inTurn([409, { reason: 'USER_TOTP_NOT_ENABLED', message: '', code: 409 }]);
    const res = await withReauth(disable, prove);
    expect(res).toMatchObject({ success: false, error: { reason: 'USER_TOTP_NOT_ENABLED' } });
    expect(prove).not.toHaveBeenCalled();
  });

  it('asks only once: a second REAUTH_REQUIRED is the caller’s to handle', async () => {
    answers['POST /auth/totp/disable'] = inTurn(REAUTH, REAUTH);
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

function show(twoFactor: boolean) {
  renderWithIntl(<Harness twoFactor={twoFactor} />);
}

const dialogInput = (name: string) => screen.getByTestId('reauth-dialog').querySelector<HTMLInputElement>(`input[name="${name}"]`) as HTMLInputElement;
const errorOf = (el: HTMLElement) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent;

describe('the re-authentication dialog', () => {
  it('asks for the password, shows a wrong one at the field, then retries the action', async () => {
    answers['POST /auth/totp/disable'] = inTurn(REAUTH, [200, { ok: true }]);
    answers['POST /auth/totp/verify'] = inTurn([401, { reason: 'PASSWORD_ERROR', message: 'Incorrect account or password', code: 401 }], [200, { ok: true }]);
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
    answers['POST /auth/totp/disable'] = inTurn(REAUTH, [200, { ok: true }]);
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
    answers['POST /auth/totp/disable'] = inTurn(REAUTH, REAUTH);
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
