// The company's own sign-in on the sign-in screen (org-signin.tsx), against a mocked API: nothing
// is asked before a mail is typed, a routed mail offers "Continue with <company>" (announced),
// a required one says why and marks the card so the password and code fields give way, an
// unrouted one shows nothing, a domain is asked about once, and the button leaves for the start
// with the connection, the language, this tab's bind hash and the query.
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as toast from '../../lib/toast';
import SignIn from './signin';
import { BIND_KEY, domainOf, forget, orgStartUrl } from './org-signin';
import { type Call, fakeApi, NOT_FOUND } from '../../testing/fake-api';
import { renderApp } from '../../testing/render-app';
import { BASE } from '../../lib/api-url';

let calls: Call[] = [];

const ACME = { connection: { id: 'conn_0123456789abcdef', name: { 'zh-CN': '艾克姆', 'en-US': 'Acme' }, protocol: 'oidc' } };

function serve(byDomain: Record<string, unknown>) {
  ({ calls } = fakeApi(
    {
      'POST /auth/org/discover': () => {
        const mail = (calls.at(-1)?.body as { mail: string }).mail;
        return [200, byDomain[mail.split('@')[1] ?? ''] ?? {}];
      },
      'GET /auth/federation': () => [200, { providers: [] }],
    },
    NOT_FOUND,
  ));
}

function show(path = '/en-US/passport/signin', locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], path, { locale });
}

const discovered = () => calls.filter((c) => c.path === '/auth/org/discover');
const type = (value: string) => fireEvent.change(document.querySelector('input[name=account]')!, { target: { value } });
const card = () => screen.getByTestId('signin-password').closest('.card')!;

beforeEach(() => forget());
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

describe('which typed accounts are asked about', () => {
  it('a mail only, by its domain', () => {
    expect(domainOf(' Ann@Acme.Example ')).toBe('acme.example');
    expect(domainOf('13800138000')).toBeNull();
    expect(domainOf('ann@')).toBeNull();
    expect(domainOf('ann@acme')).toBeNull();
    expect(domainOf('a b@acme.example')).toBeNull();
  });

  it('the start carries the connection, the language, the bind hash and the query', () => {
    expect(orgStartUrl('conn_1', 'zh-CN', '?appId=a1&serviceUrl=https://p.example/cb?x=1', 'h-1_')).toBe(
      `${BASE}/auth/org/start?connection=conn_1&lang=zh-CN&bindHash=h-1_&query=appId%3Da1%26serviceUrl%3Dhttps%3A%2F%2Fp.example%2Fcb%3Fx%3D1`,
    );
  });
});

describe('the sign-in screen with a company sign-in', () => {
  it('asks nothing for a phone, offers the company for a routed mail, and asks once per domain', async () => {
    serve({ 'acme.example': { ...ACME, required: false } });
    await show();
    type('13800138000');
    await new Promise((r) => setTimeout(r, 600));
    expect(discovered()).toHaveLength(0);
    type('ann@acme.example');
    const button = await screen.findByTestId('org-continue', {}, { timeout: 3000 });
    expect(button.textContent).toBe('Continue with Acme');
    expect(button.tagName).toBe('BUTTON');
    // Announced where it appears.
    expect(screen.getByTestId('org-signin').getAttribute('aria-live')).toBe('polite');
    expect(discovered().map((c) => c.body)).toEqual([{ mail: 'ann@acme.example' }]);
    // Not required: the password stays.
    expect(card().classList.contains('org-only')).toBe(false);
    expect(screen.queryByTestId('org-required')).toBeNull();
    type('bob@acme.example');
    await new Promise((r) => setTimeout(r, 600));
    expect(discovered()).toHaveLength(1);
    // An unrouted domain: nothing offered.
    type('ann@elsewhere.example');
    await new Promise((r) => setTimeout(r, 700));
    expect(screen.queryByTestId('org-continue')).toBeNull();
  });

  it('when required: says why, and the card gives the password and code fields up', async () => {
    serve({ 'acme.example': { ...ACME, required: true } });
    await show();
    type('ann@acme.example');
    expect((await screen.findByTestId('org-required', {}, { timeout: 3000 })).textContent).toBe('Acme asks you to sign in with its own account.');
    await vi.waitFor(() => expect(card().classList.contains('org-only')).toBe(true));
    // Another account typed: back to the password.
    type('ann@elsewhere.example');
    await vi.waitFor(() => expect(card().classList.contains('org-only')).toBe(false), { timeout: 3000 });
  });

  it('leaves for the start with a new bind kept in this tab', async () => {
    serve({ 'acme.example': { ...ACME, required: true } });
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    await show('/en-US/passport/signin?appId=a1');
    type('ann@acme.example');
    fireEvent.click(await screen.findByTestId('org-continue', {}, { timeout: 3000 }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledTimes(1));
    const url = new URL(assign.mock.calls[0]![0] as string, 'http://localhost');
    expect(url.pathname).toBe(`${BASE}/auth/org/start`);
    expect(url.searchParams.get('connection')).toBe('conn_0123456789abcdef');
    expect(url.searchParams.get('lang')).toBe('en-US');
    expect(url.searchParams.get('query')).toBe('appId=a1');
    expect(sessionStorage.getItem(BIND_KEY)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('bindHash')).not.toBe(sessionStorage.getItem(BIND_KEY));
  });

  it('speaks Chinese in zh-CN', async () => {
    serve({ 'acme.example': { ...ACME, required: true } });
    await show('/zh-CN/passport/signin', 'zh-CN');
    type('ann@acme.example');
    expect((await screen.findByTestId('org-continue', {}, { timeout: 3000 })).textContent).toBe('使用艾克姆账号继续');
    expect(screen.getByTestId('org-required').textContent).toBe('艾克姆要求你使用公司账号登录。');
  });
});
