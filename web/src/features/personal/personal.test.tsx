// The personal pages against a mocked API: what they send, and where the answers show.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createIntl, createIntlCache, type MessageFormatElement, RawIntlProvider } from 'react-intl';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { en as en, zh as zh } from '../../testing/messages';
import * as toast from '../../lib/toast';
import { countryOptions, regionName } from '../../lib/countries';
import Info from './info';
import Secure from './secure';
import type { UserInfo } from './user-info';

const user: UserInfo = {
  userId: 'u1', userName: 'ann', mail: 'an***@example.com', phone: null, company: 'Acme', duty: null, address: null,
  displayName: null, country: 'CN', avatar: null, advertisement: 'unsubscribe', tag: { eiamUid: null }, enableTotp: false,
  isComplete: false, isSubscribe: false, isEiamUser: false,
};

type Call = { method: string; path: string; body: unknown; auth: string | null };
let calls: Call[];
let answers: Record<string, () => [number, unknown]>;

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

async function settle() {
  for (let i = 0; i < 5; i++) await act(async () => new Promise((r) => setTimeout(r, 5)));
}

async function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  const router = createMemoryRouter(
    [
      { path: '/:language/personal/info', element: <Info /> },
      { path: '/:language/personal/secure', element: <Secure /> },
      { path: '/:language/passport/signin', element: <p>sign-in page</p> },
    ],
    { initialEntries: [path] },
  );
  const messages = (locale === 'en-US' ? en : zh) as unknown as Record<string, MessageFormatElement[]>;
  const intl = createIntl({ locale, messages, onError: () => {} }, createIntlCache());
  render(
    <RawIntlProvider value={intl}>
      <RouterProvider router={router} />
    </RawIntlProvider>,
  );
  await settle();
  return router;
}

const form = (testId: string) => screen.getByTestId(testId) as HTMLFormElement;
const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
const errorOf = (el: HTMLElement) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent;

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  calls = [];
  answers = { 'GET /auth/info': () => [200, user] };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/ciam/v1', '');
      const method = init.method ?? 'GET';
      calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined, auth: new Headers(init.headers).get('authorization') });
      const [status, body] = answers[`${method} ${path}`]?.() ?? [200, { ok: true }];
      return reply(status, body);
    }),
  );
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
    expect(screen.getByText('an***@example.com')).toBeTruthy();
    expect(screen.getByText('China', { selector: 'dd' })).toBeTruthy();
    expect(screen.getByTestId('profile-incomplete')).toBeTruthy();
  });

  it('has no completion prompt when the profile is complete', async () => {
    answers['GET /auth/info'] = () => [200, { ...user, duty: 'Engineer', address: '1 Road', isComplete: true }];
    await show('/en-US/personal/info');
    expect(screen.queryByTestId('profile-incomplete')).toBeNull();
  });

  it('sends only the fields that changed, trimmed', async () => {
    answers['PATCH /auth/info'] = () => [200, { ...user, duty: 'Engineer', country: 'DE' }];
    await show('/en-US/personal/info');
    const f = form('profile-form');
    fireEvent.change(input(f, 'duty'), { target: { value: '  Engineer ' } });
    fireEvent.change(f.elements.namedItem('country') as HTMLSelectElement, { target: { value: 'DE' } });
    fireEvent.submit(f);
    await settle();
    expect(calls.at(-1)).toMatchObject({ method: 'PATCH', path: '/auth/info' });
    expect(calls.at(-1)?.body).toEqual({ duty: 'Engineer', country: 'DE' });
    expect(toast.current().map((t) => t.text)).toContain('Your profile has been saved');
  });

  it('shows a server field error at its field and not as a toast', async () => {
    answers['PATCH /auth/info'] = () => [400, { reason: 'INVALID_PARAMETER', message: 'Too long', code: 400, field: 'address' }];
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
    expect(calls.filter((c) => c.method === 'PATCH')).toEqual([]);
    expect(input(f, 'company').getAttribute('aria-invalid')).toBe('true');
  });

  it('logs out on the server, clears the session and goes to sign-in', async () => {
    const router = await show('/zh-CN/personal/info', 'zh-CN');
    fireEvent.click(screen.getByTestId('logout'));
    await settle();
    expect(calls.at(-1)).toMatchObject({ method: 'POST', path: '/auth/logout', auth: 'Bearer u1.token' });
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(router.state.location.pathname).toBe('/zh-CN/passport/signin');
  });
});

describe('security center', () => {
  it('refuses a confirmation that does not match before calling the server', async () => {
    await show('/en-US/personal/secure');
    const f = form('change-password');
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'Ciam-Demo-2027!' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'Ciam-Demo-2028!' } });
    fireEvent.submit(f);
    await settle();
    expect(calls.filter((c) => c.path === '/auth/pwd')).toEqual([]);
    expect(errorOf(input(f, 'confirmPassword'))).toBe('Password does not match');
  });

  it('sends the change and shows the server field error at the new password', async () => {
    answers['PATCH /auth/pwd'] = () => [400, { reason: 'PASSWORD_COMPLEXITY_ERROR', message: 'Too common', code: 400, field: 'password' }];
    await show('/en-US/personal/secure');
    const f = form('change-password');
    fireEvent.change(input(f, 'oldPassword'), { target: { value: 'Ciam-Demo-2026!' } });
    fireEvent.change(input(f, 'password'), { target: { value: 'P@ssw0rd' } });
    fireEvent.change(input(f, 'confirmPassword'), { target: { value: 'P@ssw0rd' } });
    fireEvent.submit(f);
    await settle();
    expect(calls.at(-1)).toMatchObject({ method: 'PATCH', path: '/auth/pwd' });
    expect(calls.at(-1)?.body).toEqual({ oldPassword: 'Ciam-Demo-2026!', password: 'P@ssw0rd', confirmPassword: 'P@ssw0rd' });
    expect(input(f, 'password').getAttribute('aria-invalid')).toBe('true');
    expect(errorOf(input(f, 'password'))).toBeTruthy();
  });

  it('links the deactivation section to the deactivation page', async () => {
    await show('/en-US/personal/secure');
    expect(screen.getByRole('link', { name: 'What deactivation means' }).getAttribute('href')).toBe('/en-US/logout');
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
