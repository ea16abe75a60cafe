// Issue 12 §2, the forms that help: autofill values that make password managers save the mail or
// phone with the password.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeApi, type Reply } from '../../testing/fake-api';
import CodeForm from './code-signin';
import * as toast from '../../lib/toast';
import { at, renderApp, resetApp, settle } from '../../testing/render-app';
import * as accounts from '../../lib/accounts';
import FindPassword from './find-password';
import Register from './register';
import SignIn from './signin';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  resetApp();
});

const ac = (f: HTMLFormElement) =>
  Object.fromEntries([...f.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[name], select[name]')]
    .filter((i) => i.type !== 'checkbox')
    .map((i) => [i.name, i.getAttribute('autocomplete')]));

describe('autocomplete', () => {
  it('sign-in by password: username webauthn (passkey autofill) + current-password', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin');
    expect(ac(screen.getByTestId('signin-password') as HTMLFormElement)).toEqual({ account: 'username webauthn', password: 'current-password' });
  });

  it('sign-in by code: username webauthn + one-time-code', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin');
    fireEvent.click(screen.getByTestId('signin-mode-code'));
    const f = (await screen.findByTestId('signin-code')) as HTMLFormElement;
    expect(ac(f)).toEqual({ account: 'username webauthn', code: 'one-time-code' });
  });

  it('sign-up: the account is the username, the display name is not', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], '/en-US/passport/register');
    const f = screen.getByTestId('register') as HTMLFormElement;
    expect(ac(f)).toMatchObject({
      userName: 'nickname', company: 'organization', account: 'username', code: 'one-time-code',
      password: 'new-password', confirmPassword: 'new-password',
    });
    expect(Object.entries(ac(f)).filter(([, v]) => v === 'username').map(([k]) => k)).toEqual(['account']);
  });

  it('password recovery: username + one-time-code + new-password', async () => {
    fakeApi();
    await renderApp([{ path: '/:language/find/password', element: <FindPassword /> }], '/en-US/find/password');
    expect(ac(screen.getByTestId('find-password') as HTMLFormElement)).toEqual({
      account: 'username', code: 'one-time-code', password: 'new-password', confirmPassword: 'new-password',
    });
  });
});

const field = (f: HTMLFormElement, n: string) => f.elements.namedItem(n) as HTMLInputElement;
const AUTH_ROUTES = [
  { path: '/:language/passport/signin', element: <SignIn /> },
  { path: '/:language/passport/register', element: <Register /> },
  { path: '/:language/find/password', element: <FindPassword /> },
];

describe('the sign-in screen after sign-up and recovery', () => {
  it('after sign-up: the account just registered is prefilled (not the picker), the password focused', async () => {
    accounts.remember('old@example.com');
    fakeApi({ 'POST /auth/register': () => [200, {}] });
    const router = await renderApp(AUTH_ROUTES, '/en-US/passport/register?serviceUrl=x');
    const f = screen.getByTestId('register') as HTMLFormElement;
    const set = (n: string, value: string) => fireEvent.change(field(f, n), { target: { value } });
    set('userName', 'ann'); set('company', 'Acme'); set('account', ' ann@example.com '); set('code', '123456');
    set('password', 'Ciam-Demo-2026!'); set('confirmPassword', 'Ciam-Demo-2026!');
    fireEvent.change(f.elements.namedItem('country') as HTMLSelectElement, { target: { value: 'CN' } });
    fireEvent.click(f.elements.namedItem('acceptTerms') as HTMLInputElement);
    fireEvent.submit(f);
    await settle();
    expect(at(router)).toBe('/en-US/passport/signin?serviceUrl=x');
    const s = screen.getByTestId('signin-password') as HTMLFormElement;
    expect(field(s, 'account').value).toBe('ann@example.com');
    expect(document.activeElement).toBe(field(s, 'password'));
  });

  it('after a password reset: the account is prefilled', async () => {
    fakeApi({ 'PATCH /auth/pwd': () => [200, {}] });
    const router = await renderApp(AUTH_ROUTES, '/en-US/find/password');
    const f = screen.getByTestId('find-password') as HTMLFormElement;
    const set = (n: string, value: string) => fireEvent.change(field(f, n), { target: { value } });
    set('account', '13800138000'); set('code', '123456'); set('password', 'Ciam-Demo-2026!'); set('confirmPassword', 'Ciam-Demo-2026!');
    fireEvent.submit(f);
    await settle();
    expect(at(router)).toBe('/en-US/passport/signin');
    const s = screen.getByTestId('signin-password') as HTMLFormElement;
    expect(field(s, 'account').value).toBe('13800138000');
    expect(document.activeElement).toBe(field(s, 'password'));
  });

  it('a plain visit is not prefilled', async () => {
    fakeApi();
    await renderApp(AUTH_ROUTES, '/en-US/passport/signin');
    expect(field(screen.getByTestId('signin-password') as HTMLFormElement, 'account').value).toBe('');
  });
});

describe('sign-up: the country', () => {
  const open = async (locale: 'en-US' | 'zh-CN' = 'en-US') => {
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], `/${locale}/passport/register`, { locale });
    return screen.getByTestId('register').querySelector('select[name="country"]') as HTMLSelectElement;
  };

  it('preselected from the stored answer of /auth/location, no question asked', async () => {
    localStorage.setItem('country', 'de');
    const api = fakeApi();
    const select = await open();
    expect(select.value).toBe('DE');
    expect(select.selectedOptions[0]!.textContent).toBe('Germany (+49)');
    expect(select.querySelector('option[value=""]')).toBeNull();
    expect(api.callsTo('GET', '/auth/location')).toEqual([]);
  });

  it('nothing stored: the browser region first, then the server\'s answer (stored)', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-GB');
    let answer: () => void = () => {};
    const api = fakeApi({ 'GET /auth/location': () => [200, { country: 'HK', language: 'en-US' }] });
    const gate = new Promise<void>((r) => (answer = r));
    const fetch = api.fetch.getMockImplementation()!;
    api.fetch.mockImplementation(async (url: string, init?: RequestInit) => (url.endsWith('/auth/location') ? gate.then(() => fetch(url, init)) : fetch(url, init)));
    const select = await open();
    expect(select.value).toBe('GB');
    answer();
    await settle();
    expect(select.value).toBe('HK');
    expect(localStorage.getItem('country')).toBe('HK');
  });

  it('the server\'s late answer does not override a choice the user made', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en');
    let answer: () => void = () => {};
    const api = fakeApi({ 'GET /auth/location': () => [200, { country: 'HK', language: 'en-US' }] });
    const gate = new Promise<void>((r) => (answer = r));
    const fetch = api.fetch.getMockImplementation()!;
    api.fetch.mockImplementation(async (url: string, init?: RequestInit) => (url.endsWith('/auth/location') ? gate.then(() => fetch(url, init)) : fetch(url, init)));
    const select = await open();
    expect(select.value).toBe('');
    fireEvent.change(select, { target: { value: 'FR' } });
    answer();
    await settle();
    expect(select.value).toBe('FR');
  });

  it('the search filters by name or dialling code and selects the first match; Enter moves to the list', async () => {
    localStorage.setItem('country', 'CN');
    fakeApi();
    const select = await open();
    const search = screen.getByTestId('country-search') as HTMLInputElement;
    expect(search.getAttribute('aria-label')).toBe('Search by name or dialling code');
    expect(search.getAttribute('aria-controls')).toBe(select.id);
    fireEvent.change(search, { target: { value: 'germ' } });
    expect([...select.options].map((o) => o.value)).toEqual(['DE']);
    expect(select.value).toBe('DE');
    expect(screen.getByTestId('country-found').textContent).toBe('1 country or region matches');
    fireEvent.change(search, { target: { value: '+44' } });
    expect([...select.options].map((o) => o.value).sort()).toEqual(['GB', 'GG', 'IM', 'JE']);
    expect(screen.getByTestId('country-found').textContent).toBe('4 countries or regions match');
    const submitted = vi.fn();
    screen.getByTestId('register').addEventListener('submit', submitted);
    fireEvent.keyDown(search, { key: 'Enter' });
    expect(submitted).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(select);
    fireEvent.change(search, { target: { value: 'zzzz' } });
    expect(screen.getByTestId('country-found').textContent).toBe('No country or region matches');
    expect(select.options).toHaveLength(1);
  });

  it('zh-CN: names and search in Chinese', async () => {
    localStorage.setItem('country', 'CN');
    fakeApi();
    const select = await open('zh-CN');
    expect(select.selectedOptions[0]!.textContent).toBe('中国 (+86)');
    fireEvent.change(screen.getByTestId('country-search'), { target: { value: '德' } });
    expect(select.value).toBe('DE');
    expect(screen.getByTestId('country-found').textContent).toMatch(/个国家或地区匹配$/);
  });
});

describe('one-act code sending', () => {
  // A challenge whose answer is 3: solved at once.
  const salt = 'salt-';
  let hash = '';
  beforeAll(async () => {
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
    hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  });
  const challenge = (): Reply => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }];
  const open = async () => {
    const api = fakeApi({ 'GET /auth/captcha': challenge, 'POST /auth/identity': () => [200, { resendAfter: 60 }] });
    await renderApp([{ path: '/:language/passport/signin', element: <CodeForm account="" onSignedIn={() => {}} /> }], '/en-US/passport/signin');
    return { api, f: screen.getByTestId('signin-code') as HTMLFormElement };
  };

  it('the captcha starts solving at the first focus in the form, not before, and shows no row', async () => {
    const { api, f } = await open();
    await settle();
    expect(api.callsTo('GET', '/auth/captcha')).toHaveLength(0);
    field(f, 'account').focus();
    await settle(10);
    expect(api.callsTo('GET', '/auth/captcha')).toHaveLength(1);
    expect(screen.queryByTestId('captcha')).toBeNull();
    expect(f.textContent).not.toMatch(/robot|Verifying|Verified/);
  });

  it('"Send code" is the only act: the proof goes with it; focus moves to the code, never to the body', async () => {
    const { api, f } = await open();
    fireEvent.change(field(f, 'account'), { target: { value: 'ann@example.com' } });
    const send = screen.getByTestId('send-code');
    send.focus();
    fireEvent.click(send); // at once: the send waits for the solving under way
    expect(document.activeElement).toBe(send);
    await settle(15);
    const sent = api.callsTo('POST', '/auth/identity');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ account: 'ann@example.com', purpose: 'login' });
    const proof = JSON.parse(atob((sent[0]!.body as { captcha: string }).captcha));
    expect(proof).toMatchObject({ number: 3, salt, signature: 'sig' });
    expect(document.activeElement).toBe(field(f, 'code'));
    // The countdown: still focusable (aria-disabled, not disabled), and pressing it sends nothing.
    expect(send.hasAttribute('disabled')).toBe(false);
    expect(send.getAttribute('aria-disabled')).toBe('true');
    expect(send.textContent).toMatch(/^Resend in \d+ seconds$/);
    send.focus();
    fireEvent.click(send);
    await settle();
    expect(api.callsTo('POST', '/auth/identity')).toHaveLength(1);
    expect(document.activeElement).toBe(send);
    // The next proof is already being solved (single-use).
    expect(api.callsTo('GET', '/auth/captcha')).toHaveLength(2);
  });

  it('a failed background solving shows nothing until the send; then the captcha row asks (no toast), and after a press the send goes', async () => {
    const { api, f } = await open();
    let fail = true;
    api.answers['GET /auth/captcha'] = () => (fail ? [500, { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 500 }] : challenge());
    fireEvent.change(field(f, 'account'), { target: { value: 'ann@example.com' } });
    await settle(10);
    expect(screen.queryByTestId('captcha')).toBeNull();
    const send = screen.getByTestId('send-code');
    send.focus();
    fireEvent.click(send);
    await settle(10);
    expect(api.callsTo('POST', '/auth/identity')).toHaveLength(0);
    expect(toast.current()).toEqual([]);
    const row = screen.getByTestId('captcha');
    expect(document.activeElement).toBe(row);
    expect(row.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(row.getAttribute('aria-describedby')!)!.textContent).toBe('Verification failed, please try again');
    fail = false;
    fireEvent.click(row);
    await settle(15);
    expect(row.dataset.state).toBe('verified');
    fireEvent.click(send);
    await settle(15);
    expect(api.callsTo('POST', '/auth/identity')).toHaveLength(1);
    expect(document.activeElement).toBe(field(f, 'code'));
    expect(screen.queryByTestId('captcha')).toBeNull();
  });

  it('a proof the server refuses (VERIFYCAPTCHA_ERROR) brings the row, focused; a press and a send go through', async () => {
    const { api, f } = await open();
    let refuse = true;
    api.answers['POST /auth/identity'] = () => (refuse ? [400, { reason: 'VERIFYCAPTCHA_ERROR', message: '', code: 400 }] : [200, { resendAfter: 60 }]);
    fireEvent.change(field(f, 'account'), { target: { value: 'ann@example.com' } });
    fireEvent.click(screen.getByTestId('send-code'));
    await settle(15);
    const row = screen.getByTestId('captcha');
    expect(document.activeElement).toBe(row);
    expect(row.dataset.state).toBe('idle');
    expect(screen.getByTestId('form-alert').textContent).toBe('');
    expect(api.callsTo('GET', '/auth/captcha')).toHaveLength(1);
    refuse = false;
    fireEvent.click(row);
    await settle(15);
    expect(row.dataset.state).toBe('verified');
    fireEvent.click(screen.getByTestId('send-code'));
    await settle(15);
    expect(api.callsTo('POST', '/auth/identity')).toHaveLength(2);
    expect(screen.queryByTestId('captcha')).toBeNull();
    expect(document.activeElement).toBe(field(f, 'code'));
  });

  it('an invalid account is shown at its field before anything is sent', async () => {
    const { api, f } = await open();
    fireEvent.change(field(f, 'account'), { target: { value: 'ann.example.com' } });
    fireEvent.click(screen.getByTestId('send-code'));
    await settle(10);
    expect(api.callsTo('POST', '/auth/identity')).toHaveLength(0);
    expect(document.activeElement).toBe(field(f, 'account'));
    expect(field(f, 'account').getAttribute('aria-invalid')).toBe('true');
  });
});
