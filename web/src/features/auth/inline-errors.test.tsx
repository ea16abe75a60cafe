// Issue 12 §1/§2: refusals where the eye is (inline, not toasts), the lock's countdown, the
// two-factor modal's errors inside the dialog, the show-password toggle, the live password rules
// and the account message that fits what was typed.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MfaHost } from '../../components/mfa-host';
import * as mfa from '../../lib/mfa';
import * as toast from '../../lib/toast';
import * as v from '../../lib/validate';
import { fakeApi, inTurn, NOT_FOUND, type Reply } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import CodeForm from './code-signin';
import FindPassword from './find-password';
import Register from './register';
import SignIn from './signin';

afterEach(() => {
  vi.useRealTimers();
  mfa.close();
  resetApp();
});

const WRONG: [number, unknown] = [401, { reason: 'PASSWORD_ERROR', message: '', code: 401 }];

async function signInScreen(locale: 'en-US' | 'zh-CN' = 'en-US', onNeedTotp?: (c: string | undefined) => void) {
  await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], `/${locale}/passport/signin`, { locale, onNeedTotp });
  return screen.getByTestId('signin-password') as HTMLFormElement;
}
const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
async function submit(f: HTMLFormElement, password = 'Wrong-1!') {
  fireEvent.change(input(f, 'account'), { target: { value: 'ann@example.com' } });
  fireEvent.change(input(f, 'password'), { target: { value: password } });
  fireEvent.submit(f);
  await settle();
}

describe('sign-in refusals inline', () => {
  it('a wrong password is an alert atop the form, focused, no toast; it stays until the user edits', async () => {
    fakeApi({ 'POST /auth/login/password': () => WRONG });
    const f = await signInScreen();
    await submit(f);
    const alert = within(screen.getByTestId('form-alert')).getByRole('alert');
    expect(alert.textContent).toBe('Incorrect account or password');
    expect(document.activeElement).toBe(screen.getByTestId('form-alert'));
    expect(toast.current()).toEqual([]);
    await settle(3);
    expect(alert.textContent).toBe('Incorrect account or password');
    fireEvent.change(input(f, 'password'), { target: { value: 'Other-2!' } });
    expect(screen.getByTestId('form-alert').textContent).toBe('');
  });

  it('zh-CN: the same alert in Chinese', async () => {
    fakeApi({ 'POST /auth/login/password': () => WRONG });
    const f = await signInScreen('zh-CN');
    await submit(f);
    expect(screen.getByTestId('form-alert').textContent).toBe('账号或密码错误');
  });

  it('the lock counts down in the alert and keeps the form from being sent until it ends', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const until = Math.floor(Date.now() / 1000) + 90;
    const api = fakeApi({ 'POST /auth/login/password': () => [423, { reason: 'VERIFICATION_ATTEMPT_CODE_LIMIT', message: String(until), code: 423 }] });
    const f = await signInScreen();
    await submit(f);
    const button = within(f).getByRole('button', { name: 'Sign in' }) as HTMLButtonElement;
    // Said once (issue 34 item 7): the lock by the alert, the wait by its clock, never in minutes too.
    expect(within(screen.getByTestId('form-alert')).getByRole('alert').textContent).toBe('Your account has been locked.');
    expect(screen.getByTestId('unlock-in').textContent).toMatch(/^Please try it in 1:(29|30)\.$/);
    expect(screen.getByTestId('form-alert').textContent).not.toMatch(/minute/);
    expect(screen.getByTestId('form-alert').textContent?.match(/locked/gi)).toHaveLength(1);
    expect(screen.getByTestId('form-alert').textContent?.match(/try it in/gi)).toHaveLength(1);
    expect(screen.getByTestId('lock-reset').getAttribute('href')).toBe('/en-US/find/password');
    expect(button.disabled).toBe(true);
    fireEvent.change(input(f, 'password'), { target: { value: 'Other-2!' } });
    expect(screen.getByTestId('form-alert').textContent).toContain('locked');
    vi.advanceTimersByTime(60_000);
    await settle(1);
    expect(screen.getByTestId('unlock-in').textContent).toMatch(/0:(29|30)/);
    vi.advanceTimersByTime(31_000);
    await settle(1);
    expect(screen.queryByTestId('unlock-in')).toBeNull();
    expect(button.disabled).toBe(false);
    expect(screen.getByTestId('form-alert').textContent).toBe('');
    expect(api.callsTo('POST', '/auth/login/password')).toHaveLength(1);
  });

  it('reasons not about the form keep the default handling: the second step opens, no alert', async () => {
    fakeApi({ 'POST /auth/login/password': () => [401, { reason: 'NEED_TOTP_VERIFY', message: '', code: 401, challenge: 'ch1' }] });
    const need = vi.fn();
    const f = await signInScreen('en-US', need);
    await submit(f, 'Right-Pass-1!');
    expect(need).toHaveBeenCalledWith('ch1');
    expect(screen.getByTestId('form-alert').textContent).toBe('');
  });

  it('a server error not about the form is said atop the form that was submitted, focused, not in a toast', async () => {
    fakeApi({ 'POST /auth/login/password': () => [500, { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 500 }] });
    const f = await signInScreen();
    await submit(f);
    expect(toast.current()).toEqual([]);
    const alert = within(f).getByTestId('form-alert');
    expect(within(alert).getByRole('alert').textContent).not.toBe('');
    expect(document.activeElement).toBe(alert);
  });
});

describe('register and recovery', () => {
  it('a taken mail shows at the account field (aria-invalid, described), focused', async () => {
    fakeApi({ 'POST /auth/register': () => [409, { reason: 'MAIL_EXIST', message: '', code: 409 }] }, NOT_FOUND);
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], '/en-US/passport/register');
    const f = screen.getByTestId('register') as HTMLFormElement;
    const set = (n: string, value: string) => fireEvent.change(input(f, n), { target: { value } });
    set('userName', 'ann'); set('company', 'Acme'); set('account', 'ann@example.com'); set('code', '123456');
    set('password', 'Ciam-Demo-2026!'); set('confirmPassword', 'Ciam-Demo-2026!');
    fireEvent.change(f.elements.namedItem('country') as HTMLSelectElement, { target: { value: 'CN' } });
    fireEvent.click(f.elements.namedItem('acceptTerms') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    const account = input(f, 'account');
    expect(account.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(account);
    const described = account.getAttribute('aria-describedby')!.split(' ').map((id) => document.getElementById(id)?.textContent).join('|');
    expect(described).not.toBe('');
    expect(toast.current()).toEqual([]);
  });

  it.each([
    ['en-US', 'The field cannot be empty'],
    ['zh-CN', '该字段不能为空'],
  ] as const)('%s: a company name of spaces only is "the field cannot be empty", and nothing is sent', async (locale, text) => {
    const api = fakeApi({}, NOT_FOUND);
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], `/${locale}/passport/register`, { locale });
    const f = screen.getByTestId('register') as HTMLFormElement;
    fireEvent.change(input(f, 'company'), { target: { value: '   ' } });
    fireEvent.submit(f);
    await settle();
    const company = input(f, 'company');
    expect(company.getAttribute('aria-invalid')).toBe('true');
    const described = company.getAttribute('aria-describedby')!.split(' ').map((id) => document.getElementById(id)?.textContent).join('|');
    expect(described).toContain(text);
    expect(api.callsTo('POST', '/auth/register')).toEqual([]);
  });

  it('the new password has a live checklist of the rules of lib/validate.ts, and a show-password toggle', async () => {
    fakeApi({}, NOT_FOUND);
    await renderApp([{ path: '/:language/find/password', element: <FindPassword /> }], '/en-US/find/password');
    const f = screen.getByTestId('find-password') as HTMLFormElement;
    const list = screen.getByTestId('password-rules');
    expect(list.getAttribute('aria-live')).toBe('polite');
    expect(list.querySelectorAll('li')).toHaveLength(v.passwordChecks.length);
    const met = () => [...list.querySelectorAll('li')].map((li) => li.dataset.met === 'true');
    // Empty: nothing ticked, "none of ` \\ ' \" /" included, and nothing said as met or not met.
    expect(met().some(Boolean)).toBe(false);
    expect(list.textContent).not.toMatch(/✓|met/);
    fireEvent.change(input(f, 'password'), { target: { value: 'abc' } });
    expect(list.textContent).toContain('(not met)');
    expect(met()).toEqual([false, false, true, false, false, true]);
    fireEvent.change(input(f, 'password'), { target: { value: 'Ciam-Demo-2026!' } });
    expect(met().every(Boolean)).toBe(true);
    expect(input(f, 'password').getAttribute('aria-describedby')).toContain(list.id);
    const show = screen.getByTestId('show-password');
    expect(show.getAttribute('aria-pressed')).toBe('false');
    expect(show.getAttribute('aria-label')).toBe('Show password');
    fireEvent.click(show);
    expect(input(f, 'password').type).toBe('text');
    expect(show.getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(show);
    expect(input(f, 'password').type).toBe('password');
  });

  it('zh-CN: the toggle and the rules in Chinese', async () => {
    fakeApi({}, NOT_FOUND);
    await renderApp([{ path: '/:language/find/password', element: <FindPassword /> }], '/zh-CN/find/password', { locale: 'zh-CN' });
    expect(screen.getByTestId('show-password').getAttribute('aria-label')).toBe('显示密码');
    expect(screen.getByTestId('password-rules').textContent).toContain('包含大写字母');
  });
});

describe('the account message fits what was typed', () => {
  it('mail-like text gets the mail message, digits the phone message', () => {
    expect(v.identity('ann.example.com')).toEqual(v.rules.mail);
    expect(v.identity('ann@example')).toEqual(v.rules.mail);
    expect(v.identity('1380013')).toEqual(v.rules.phone);
    expect(v.identity('+86 138 0013 8000')).toBeNull();
    expect(v.identity('ann@example.com')).toBeNull();
  });
});

describe('the two-factor modal', () => {
  it('focuses the code input; a wrong code shows inside the dialog, clears and refocuses the input', async () => {
    fakeApi({ 'POST /auth/login/totp': inTurn([401, { reason: 'TOTP_VERIFY_FAILED', message: '', code: 401 }]) });
    await renderApp([{ path: '/:language/passport/signin', element: <MfaHost /> }], '/en-US/passport/signin');
    mfa.open('ch1');
    await settle();
    const code = screen.getByTestId('mfa-code') as HTMLInputElement;
    expect(document.activeElement).toBe(code);
    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.submit(code.form!);
    await settle();
    const dialog = code.closest('dialog')!;
    expect(within(dialog).getByTestId('mfa-error').textContent).toBe('Invalid or expired code');
    expect(within(dialog).getByTestId('mfa-error').getAttribute('role')).toBe('alert');
    expect(code.value).toBe('');
    expect(document.activeElement).toBe(code);
    expect(toast.current()).toEqual([]);
  });
});

describe('the two-factor modal says the reason of each refusal', () => {
  async function backupTab(answer: Reply, locale: 'en-US' | 'zh-CN' = 'en-US') {
    fakeApi({ 'POST /auth/unlockCode': () => answer });
    await renderApp([{ path: '/:language/passport/signin', element: <MfaHost /> }], `/${locale}/passport/signin`, { locale });
    mfa.open('ch1');
    await settle();
    fireEvent.click(document.querySelectorAll<HTMLElement>('[role="tab"]')[1]!);
    const code = screen.getByTestId('mfa-code') as HTMLInputElement;
    fireEvent.change(code, { target: { value: '12345678' } });
    fireEvent.submit(code.form!);
    await settle();
    return code.closest('dialog')!;
  }
  const verify = (d: HTMLElement) => d.querySelector('button[type="submit"]') as HTMLButtonElement;

  it('a wrong backup code: "Backup code invalid"', async () => {
    const d = await backupTab([400, { reason: 'UNLOCKCODE_NOT_FOUND', message: '', code: 400 }]);
    expect(within(d).getByTestId('mfa-error').textContent).toBe('Backup code invalid');
    expect(verify(d).disabled).toBe(false);
  });

  it('the lock: the unlock-time message, a live clock, Verify disabled until it ends, the reset link', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const until = Math.floor(Date.now() / 1000) + 90;
    const d = await backupTab([423, { reason: 'VERIFICATION_ATTEMPT_CODE_LIMIT', message: String(until), code: 423 }]);
    // The lock said once: the error line says it, the clock says the wait.
    expect(within(d).getByTestId('mfa-error').textContent).toBe('Your account has been locked.');
    expect(within(d).getByTestId('mfa-unlock-in').textContent).toMatch(/^Please try it in 1:(29|30)\.$/);
    expect(within(d).getByTestId('lock-reset').getAttribute('href')).toBe('/en-US/find/password');
    expect(verify(d).disabled).toBe(true);
    vi.advanceTimersByTime(91_000);
    await settle(1);
    expect(within(d).queryByTestId('mfa-unlock-in')).toBeNull();
    expect(within(d).getByTestId('mfa-error').textContent).toBe('');
    expect(verify(d).disabled).toBe(false);
  });

  it('an expired sign-in step: "Unlock failed" and a way back to the first step (zh-CN)', async () => {
    const d = await backupTab([400, { reason: 'UNLOCKCODE_PWD_NOT_FOUND', message: '', code: 400 }], 'zh-CN');
    expect(within(d).getByTestId('mfa-error').textContent).toContain('解锁失败');
    expect(verify(d).disabled).toBe(true);
    expect(document.activeElement).toBe(within(d).getByTestId('mfa-restart'));
    fireEvent.click(within(d).getByTestId('mfa-restart'));
    await settle();
    expect(mfa.current()).toBeNull();
  });

  it('a network failure says so', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    await renderApp([{ path: '/:language/passport/signin', element: <MfaHost /> }], '/en-US/passport/signin');
    mfa.open('ch1');
    await settle();
    fireEvent.click(document.querySelectorAll<HTMLElement>('[role="tab"]')[1]!);
    const code = screen.getByTestId('mfa-code') as HTMLInputElement;
    fireEvent.change(code, { target: { value: '12345678' } });
    fireEvent.submit(code.form!);
    await settle();
    expect(screen.getByTestId('mfa-error').textContent).toBe('Network error, please check your connection');
  });
});

describe('the code form', () => {
  // A captcha challenge whose answer is 3, so the widget solves it at once.
  const salt = 'salt-';
  let hash = '';
  beforeAll(async () => {
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
    hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  });
  const challenge = (): Reply => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }];

  async function sendOnce(identity: () => Reply | undefined) {
    fakeApi({ 'GET /auth/captcha': challenge, 'POST /auth/identity': identity,
      'POST /auth/login/code': () => [400, { reason: 'CODE_ERROR', message: '', code: 400 }] });
    await renderApp([{ path: '/:language/passport/signin', element: <CodeForm account="ann@example.com" onSignedIn={() => {}} /> }], '/en-US/passport/signin');
    const f = screen.getByTestId('signin-code') as HTMLFormElement;
    fireEvent.click(screen.getByTestId('send-code'));
    await settle(15);
    return f;
  }

  it('"code sent" is said by the field, focus goes to the code; a wrong code shows at the code field', async () => {
    const f = await sendOnce(() => [200, { resendAfter: 60 }]);
    expect(screen.getByTestId('code-sent').textContent).toBe('The verification code has been sent');
    expect(document.activeElement).toBe(input(f, 'code'));
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(input(f, 'code').getAttribute('aria-invalid')).toBe('true');
    expect(toast.current()).toEqual([]);
  });

  it('a refused send shows at the code field, not in a toast', async () => {
    const f = await sendOnce(() => [429, { reason: 'VERIFYCODE_SENDING_TOO_QUICKLY', message: '', code: 429 }]);
    expect(input(f, 'code').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('code-sent').textContent).toBe('');
    expect(toast.current()).toEqual([]);
  });
});
