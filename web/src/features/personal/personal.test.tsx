// The Personal Center against a mocked API: what it sends, and where the answers show.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as toast from '../../lib/toast';
import { countryOptions, regionName } from '../../lib/countries';
import { callsTo, errorOf, form, input, mockFetch, settle, show, state, user } from './test-kit';
import { BASE } from '../../lib/api-url';

const APPS = {
  apps: [
    { appId: 'old', name: 'Old Portal', url: 'https://old.example.com', lastLoginTime: 1_700_000_000 },
    { appId: 'new', name: 'New Portal', url: 'https://new.example.com', lastLoginTime: 1_760_000_000 },
    { appId: 'mid', name: 'Mid Portal', url: 'javascript:alert(1)', lastLoginTime: 1_750_000_000 },
  ],
};
const CATALOGUE = {
  apps: [
    { appId: 'demo-factory', name: 'Demo factory portal', url: 'https://demo.example.com', recommended: true },
    { appId: 'docs', name: 'Documentation', url: 'https://docs.example.com', recommended: false },
  ],
};

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/apps': () => [200, APPS],
    'GET /app/language/en-US': () => [200, CATALOGUE],
    'GET /app/language/zh-CN': () => [200, CATALOGUE],
  });
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('personal info', () => {
  it('shows the account from GET /auth/info and asks to complete the profile', async () => {
    await show('/en-US/personal/info');
    expect(screen.getByTestId('info-username').textContent).toBe('ann');
    // The owner's own mail, whole, on its row.
    expect(screen.getByTestId('bind-mail-open').closest('.fold')?.textContent).toContain('ann@example.com');
    expect(screen.getByText('China', { selector: 'dd' })).toBeTruthy();
    expect(screen.getByTestId('profile-incomplete')).toBeTruthy();
  });

  it('names only what the profile lacks (not the company given at sign-up); its button opens the form', async () => {
    await show('/en-US/personal/info');
    const banner = screen.getByTestId('profile-incomplete');
    expect(banner.textContent).toContain('Your profile lacks: Position and Address.');
    expect(banner.textContent).not.toContain('Company');
    expect(screen.queryByTestId('profile-form')).toBeNull();
    fireEvent.click(screen.getByTestId('complete-profile'));
    await settle();
    const f = screen.getByTestId('profile-form') as HTMLFormElement;
    expect(document.activeElement).toBe(input(f, 'company'));
  });

  it('each form is closed behind its row: opened in place with the focus in it, closed back to its button', async () => {
    await show('/en-US/personal/info');
    for (const name of ['profile-form', 'bind-mail', 'bind-phone']) {
      expect(screen.queryByTestId(name)).toBeNull();
      const button = screen.getByTestId(`${name}-open`);
      expect(button.getAttribute('aria-expanded')).toBe('false');
      fireEvent.click(button);
      await settle();
      const f = screen.getByTestId(name);
      expect(button.getAttribute('aria-expanded')).toBe('true');
      expect(f.contains(document.activeElement), name).toBe(true);
      expect(button.textContent).toBe('Cancel');
      fireEvent.click(button);
      await settle();
      expect(screen.queryByTestId(name)).toBeNull();
      expect(document.activeElement).toBe(button);
    }
    // The owner's summary: the values set, and the owner's own mail whole.
    expect(screen.getByTestId('profile-summary').textContent).toBe('Acme');
    expect(screen.getByTestId('bind-mail-open').closest('.fold')?.textContent).toContain('ann@example.com');
  });

  it('has no completion prompt when the profile is complete', async () => {
    state.answers['GET /auth/info'] = () => [200, { ...user, duty: 'Engineer', address: '1 Road', isComplete: true }];
    await show('/en-US/personal/info');
    expect(screen.queryByTestId('profile-incomplete')).toBeNull();
  });

  it('sends only the fields that changed, trimmed', async () => {
    state.answers['PATCH /auth/info'] = () => [200, { ...user, duty: 'Engineer', country: 'DE' }];
    await show('/en-US/personal/info');
    const f = form('profile-form');
    fireEvent.change(input(f, 'duty'), { target: { value: '  Engineer ' } });
    fireEvent.change(f.elements.namedItem('country') as HTMLSelectElement, { target: { value: 'DE' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/info').map((c) => c.body)).toEqual([{ duty: 'Engineer', country: 'DE' }]);
    // Saved: the form closes, its row says so (not a toast) and the focus is back on its button.
    expect(screen.queryByTestId('profile-form')).toBeNull();
    expect(screen.getByTestId('profile-status').textContent).toBe('Your profile has been saved');
    expect(screen.getByTestId('profile-status').getAttribute('role')).toBe('status');
    expect(document.activeElement).toBe(screen.getByTestId('profile-form-open'));
    expect(toast.current()).toEqual([]);
  });

  it('shows a server field error at its field and not as a toast', async () => {
    state.answers['PATCH /auth/info'] = () => [400, { reason: 'INVALID_PARAMETER', message: 'Too long', code: 400, field: 'address' }];
    await show('/en-US/personal/info');
    const f = form('profile-form');
    fireEvent.change(input(f, 'address'), { target: { value: '1 Factory Road' } });
    fireEvent.submit(f);
    await settle();
    const address = input(f, 'address');
    expect(address.getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(address)).toBe('Too long');
    expect(document.activeElement).toBe(address);
    expect(toast.current()).toEqual([]);
  });

  it('refuses an emptied company name without calling the server', async () => {
    await show('/en-US/personal/info');
    const f = form('profile-form');
    fireEvent.change(input(f, 'company'), { target: { value: '  ' } });
    fireEvent.submit(f);
    await settle();
    expect(state.calls.filter((c) => c.method === 'PATCH')).toEqual([]);
    expect(input(f, 'company').getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(input(f, 'company'))).toBe('The field cannot be empty');
  });

  it('logs out on the server, clears the session and goes to sign-in', async () => {
    const router = await show('/zh-CN/personal/info', 'zh-CN');
    fireEvent.click(screen.getByTestId('logout'));
    await settle();
    const logout = callsTo('POST', '/auth/logout');
    expect(logout).toHaveLength(1);
    expect(logout[0]?.headers.get('authorization')).toBe('Bearer u1.token');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/zh-CN/passport/signin');
  });
});

describe('avatar', () => {
  const choose = (file: File) => fireEvent.change(screen.getByTestId('avatar-input'), { target: { files: [file] } });
  const png = (size = 68) => new File([new Uint8Array(size)], 'me.png', { type: 'image/png' });

  it('uploads the chosen image as the raw body and shows the new avatar', async () => {
    state.answers['PATCH /auth/avatar'] = () => [200, { avatar: `${BASE}/avatar/u1-abc.png` }];
    await show('/en-US/personal/info');
    expect(screen.queryByTestId('avatar-img')).toBeNull();
    const input = screen.getByTestId('avatar-input') as HTMLInputElement;
    expect(input.type).toBe('file');
    expect(input.accept).toBe('image/png,image/jpeg,image/webp');
    const file = png();
    choose(file);
    await settle();
    const [call] = callsTo('PATCH', '/auth/avatar');
    expect(call?.raw).toBe(file);
    // No header of its own: fetch sends the file's type as its Content-Type.
    expect(call?.headers.get('content-type')).toBeNull();
    expect((call?.raw as Blob).type).toBe('image/png');
    expect(call?.headers.get('authorization')).toBe('Bearer u1.token');
    const img = screen.getByTestId('avatar-img') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe(`${BASE}/avatar/u1-abc.png`);
    expect(img.alt).toBe('Your profile photo');
  });

  it('refuses an image over 1 MB and an SVG before uploading', async () => {
    await show('/en-US/personal/info');
    choose(png(1024 * 1024 + 1));
    await settle();
    const el = screen.getByTestId('avatar-input');
    expect(errorOf(el)).toBe('The image is larger than 1 MB. Please choose a smaller one.');
    expect(el.getAttribute('aria-invalid')).toBe('true');
    choose(new File(['<svg xmlns="http://www.w3.org/2000/svg"/>'], 'x.svg', { type: 'image/svg+xml' }));
    await settle();
    expect(errorOf(el)).toBe('Please choose a PNG, JPEG or WebP image.');
    expect(callsTo('PATCH', '/auth/avatar')).toEqual([]);
  });

  it('shows the server refusals at the field and a failure as "upload error"', async () => {
    state.answers['PATCH /auth/avatar'] = () => [400, { reason: 'AVATAR_INVALID', message: 'not an image', code: 400 }];
    await show('/en-US/personal/info');
    choose(png());
    await settle();
    expect(errorOf(screen.getByTestId('avatar-input'))).toBe('Please choose a PNG, JPEG or WebP image.');
    state.answers['PATCH /auth/avatar'] = () => [500, { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 500 }];
    choose(png());
    await settle();
    expect(errorOf(screen.getByTestId('avatar-input'))).toBe('Upload error, please try later');
    // Said once, at the field (no toast at the top of the page as well).
    expect(toast.current()).toEqual([]);
  });
});

describe('binding mail and phone', () => {
  // A captcha challenge whose answer is 3, so the widget solves it at once.
  const salt = 'salt-';
  let hash = '';
  beforeAll(async () => {
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${salt}3`)));
    hash = Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  });
  const challenge = (): [number, unknown] => [200, { algorithm: 'SHA-256', challenge: hash, maxnumber: 10, salt, signature: 'sig' }];

  it('one press of "Send code" sends the bind code (the captcha solved itself), focus to the code, "code sent" by it; then binds', async () => {
    state.answers['GET /auth/captcha'] = challenge;
    state.answers['POST /auth/identity'] = () => [200, { resendAfter: 60 }];
    state.answers['PATCH /auth/mail'] = () => [200, { ...user, mail: 'bo***@example.com', fullMail: 'bob@example.com' }];
    await show('/en-US/personal/info');
    const f = form('bind-mail');
    fireEvent.focusIn(input(f, 'mail'));
    fireEvent.change(input(f, 'mail'), { target: { value: ' Bob@Example.com ' } });
    const send = f.querySelector('[data-testid="send-code"]') as HTMLButtonElement;
    fireEvent.click(send);
    await settle(10);
    const [sent] = callsTo('POST', '/auth/identity');
    expect(sent?.body).toMatchObject({ account: 'bob@example.com', purpose: 'bind' });
    expect(typeof (sent?.body as { captcha: string }).captcha).toBe('string');
    expect(send.getAttribute('aria-disabled')).toBe('true');
    expect(send.textContent).toMatch(/^Resend in \d+ seconds?$/);
    expect(document.activeElement).toBe(input(f, 'code'));
    expect(f.querySelector('[data-testid="code-sent"]')?.textContent).toBe('The verification code has been sent');
    expect(toast.current()).toEqual([]);
    expect(f.textContent).toContain('Verification code');
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/mail').map((c) => c.body)).toEqual([{ mail: 'bob@example.com', code: '123456' }]);
    // Bound: the form closes, the row shows the new address whole and says so (not a toast).
    expect(screen.queryByTestId('bind-mail')).toBeNull();
    expect(screen.getByTestId('bind-mail-open').closest('.fold')?.textContent).toContain('bob@example.com');
    expect(screen.getByTestId('bind-mail-done').textContent).toBe('Your e-mail address has been updated');
    expect(toast.current()).toEqual([]);
  });

  it('a phone is never called an address (en-US and zh-CN)', async () => {
    await show('/en-US/personal/info');
    expect(form('bind-phone').textContent).not.toMatch(/address/i);
    cleanup();
    await show('/zh-CN/personal/info');
    expect(form('bind-phone').textContent).not.toMatch(/地址|邮箱/);
  });

  it('refuses the current address on the client when this browser signed in with it', async () => {
    localStorage.setItem('ciam_accounts', JSON.stringify([{ account: 'ann@example.com', lastUsed: Date.now() }]));
    await show('/en-US/personal/info');
    const f = form('bind-mail');
    fireEvent.change(input(f, 'mail'), { target: { value: 'ANN@example.com' } });
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(errorOf(input(f, 'mail'))).toBe('The new value must differ from the current one');
    expect(callsTo('PATCH', '/auth/mail')).toEqual([]);
  });

  it('refuses the current address exactly when the server gives it whole, whatever this browser signed in with', async () => {
    state.answers['PATCH /auth/mail'] = () => [200, { ...user, fullMail: 'anna@example.com' }];
    await show('/en-US/personal/info');
    const f = form('bind-mail');
    fireEvent.change(input(f, 'mail'), { target: { value: ' Ann@Example.com ' } });
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(errorOf(input(f, 'mail'))).toBe('The new value must differ from the current one');
    // Another address that masks alike is not the current one.
    fireEvent.change(input(f, 'mail'), { target: { value: 'anna@example.com' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/mail').map((c) => c.body)).toEqual([{ mail: 'anna@example.com', code: '123456' }]);
    expect(screen.getByTestId('bind-mail-done').textContent).toBe('Your e-mail address has been updated');
  });

  it('shows a taken number and a wrong code at their fields', async () => {
    state.answers['PATCH /auth/phone'] = () => [409, { reason: 'PHONE_EXIST', message: '', code: 409 }];
    await show('/en-US/personal/info');
    const f = form('bind-phone');
    fireEvent.change(input(f, 'phone'), { target: { value: '+86 138 0013 8000' } });
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    expect(callsTo('PATCH', '/auth/phone').map((c) => c.body)).toEqual([{ phone: '13800138000', code: '123456' }]);
    expect(errorOf(input(f, 'phone'))).toBe('The phone number has already been bound');
    state.answers['PATCH /auth/phone'] = () => [400, { reason: 'VERIFYCODE_NOT_FOUND', message: '', code: 400 }];
    fireEvent.submit(f);
    await settle();
    expect(errorOf(input(f, 'code'))).toBe('Verification code incorrect');
    expect(toast.current()).toEqual([]);
  });

  it('asks to confirm identity when the server wants a fresh proof, then binds', async () => {
    let n = 0;
    state.answers['PATCH /auth/phone'] = () =>
      n++ === 0 ? [403, { reason: 'REAUTH_REQUIRED', message: '', code: 403 }] : [200, { ...user, phone: '138****8000', fullPhone: '13800138000' }];
    await show('/en-US/personal/info');
    const f = form('bind-phone');
    fireEvent.change(input(f, 'phone'), { target: { value: '13800138000' } });
    fireEvent.change(input(f, 'code'), { target: { value: '123456' } });
    fireEvent.submit(f);
    await settle();
    const dialog = screen.getByTestId('reauth-dialog');
    fireEvent.change(dialog.querySelector('input[name="password"]') as HTMLInputElement, { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.submit(dialog.querySelector('form') as HTMLFormElement);
    await settle();
    expect(callsTo('POST', '/auth/totp/verify').map((c) => c.body)).toEqual([{ password: 'Ciam-Demo-2026!' }]);
    expect(callsTo('PATCH', '/auth/phone')).toHaveLength(2);
    expect(screen.getByTestId('bind-phone-open').closest('.fold')?.textContent).toContain('13800138000');
  });

  it('hides the mail form of a staff account with a note, and keeps the phone form', async () => {
    state.answers['GET /auth/info'] = () => [200, { ...user, isEiamUser: true, tag: { eiamUid: 'e1' } }];
    await show('/en-US/personal/info');
    expect(screen.queryByTestId('bind-mail')).toBeNull();
    expect(screen.getByTestId('bind-mail-staff').textContent).toMatch(/cannot be changed here/);
    expect(form('bind-phone')).toBeTruthy();
  });
});

describe('applications', () => {
  it('shows the 2 most recent apps, newest first, and links only http(s) addresses', async () => {
    await show('/en-US/personal/info');
    const recent = screen.getByTestId('apps-recent');
    const items = [...recent.querySelectorAll('li')];
    expect(items.map((li) => li.textContent?.split(' (')[0]?.split('Last')[0]?.trim())).toEqual(['New Portal', 'Mid Portal']);
    expect(items[0]?.querySelector('a')?.getAttribute('href')).toBe('https://new.example.com/');
    expect(items[1]?.querySelector('a')).toBeNull();
    expect(items[0]?.querySelector('time')?.getAttribute('dateTime')).toBe(new Date(1_760_000_000_000).toISOString());
  });

  it('asks for the catalogue in the page language and splits recommended from common', async () => {
    await show('/zh-CN/personal/info', 'zh-CN');
    expect(callsTo('GET', '/app/language/zh-CN')).toHaveLength(1);
    expect(screen.getByTestId('apps-recommended').textContent).toContain('Demo factory portal');
    expect(screen.getByTestId('apps-common').textContent).toContain('Documentation');
  });

  it('says so when the lists cannot be loaded, without a toast', async () => {
    state.answers['GET /auth/apps'] = () => [404, { reason: 'NOT_FOUND', message: '', code: 404 }];
    await show('/en-US/personal/info');
    expect(screen.getByTestId('apps').textContent).toContain('The applications could not be loaded.');
    expect(toast.current()).toEqual([]);
  });
});

describe('countries', () => {
  it('names regions in the page language and keeps a stored code outside the list', () => {
    expect(regionName('DE', 'zh-CN')).toBe('德国');
    const options = countryOptions('en-US', 'IS');
    expect(options.find((o) => o.code === 'IS')?.name).toBe('Iceland');
    const names = options.map((o) => o.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en-US')));
  });
});
