// The console's gate, navigation and overview against a mocked API.
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { inTurn } from '../../testing/fake-api';
import { at as where, renderApp, resetApp, settle } from '../../testing/render-app';
import ConsoleChunk, { screenOf } from './console';
import { niceMax } from './chart';
import { open, REAUTH } from './test-kit';

afterEach(resetApp);

const navLinks = () => within(screen.getByRole('navigation', { name: 'Console sections' })).getAllByRole('link').map((a) => a.textContent);

describe('the gate', () => {
  it('asks GET /admin/me first and shows what a viewer may do', async () => {
    const { fake } = await open('/en-US/admin', 'viewer');
    expect(fake.calls[0]?.path === '/admin/me' || fake.calls.some((c) => c.path === '/admin/me')).toBe(true);
    expect(navLinks()).toEqual(['Overview', 'Accounts', 'Apps', 'Organizations', 'Audit log']);
    expect(screen.getByTestId('console-role').textContent).toContain('op@example.com · Viewer');
  });

  it('an admin also sees Roles', async () => {
    await open('/en-US/admin', 'admin');
    expect(navLinks()).toEqual(['Overview', 'Accounts', 'Apps', 'Organizations', 'Audit log', 'Roles']);
  });

  it('PERMISSION_DENIED: no console role', async () => {
    await open('/en-US/admin', null, { 'GET /admin/me': () => [403, { reason: 'PERMISSION_DENIED', message: '', code: 403 }] });
    expect(screen.getByTestId('console-noRole').textContent).toContain('no console role');
    expect(screen.queryByRole('navigation', { name: 'Console sections' })).toBeNull();
  });

  it('CONSOLE_MFA_REQUIRED: turn on two-factor first, with a link to the security page', async () => {
    await open('/en-US/admin/accounts', null, { 'GET /admin/me': () => [403, { reason: 'CONSOLE_MFA_REQUIRED', message: '', code: 403 }] });
    const box = screen.getByTestId('console-mfa');
    expect(box.textContent).toContain('Turn on two-factor sign-in first');
    expect(within(box).getByRole('link', { name: 'Go to the security settings' }).getAttribute('href')).toBe('/en-US/personal/secure#two-factor');
  });

  it('NOT_FOUND: the console is turned off on this server (--no-console), with no retry loop', async () => {
    const { fake } = await open('/en-US/admin', null, { 'GET /admin/me': () => [404, { reason: 'NOT_FOUND', message: '', code: 404 }] });
    const box = screen.getByTestId('console-off');
    expect(box.textContent).toContain('The console is turned off');
    expect(within(box).getByRole('link', { name: 'My account' }).getAttribute('href')).toBe('/en-US/personal/info');
    expect(fake.callsTo('GET', '/admin/me')).toHaveLength(1);
    expect(screen.queryByRole('navigation', { name: 'Console sections' })).toBeNull();
  });

  it('REAUTH_REQUIRED: the fresh proof, then GET /admin/me again', async () => {
    const { fake } = await open('/en-US/admin', null, { 'GET /admin/me': inTurn(REAUTH, [200, { role: 'operator', userId: 'op1', mail: null }]) });
    const d = screen.getByTestId('reauth-dialog');
    fireEvent.change(within(d).getByLabelText('Authenticator code'), { target: { value: '123456' } });
    fireEvent.submit(d.querySelector('form')!);
    await settle();
    expect(fake.callsTo('POST', '/auth/totp/verify')[0]?.body).toEqual({ code: '123456' });
    expect(fake.callsTo('GET', '/admin/me')).toHaveLength(2);
    expect(navLinks()).toContain('Accounts');
  });

  it('a cancelled proof leaves a retry', async () => {
    await open('/en-US/admin', null, { 'GET /admin/me': inTurn(REAUTH, [200, { role: 'viewer', userId: 'op1', mail: null }]) });
    fireEvent.click(within(screen.getByTestId('reauth-dialog')).getByRole('button', { name: 'Cancel' }));
    await settle();
    expect(screen.getByTestId('console-proof')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await settle();
    expect(navLinks()).toContain('Overview');
  });

  it('a session the server does not know: sign in, then back to this page', async () => {
    const { router } = await open('/en-US/admin/audit?x=1', null, { 'GET /admin/me': () => [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }] });
    expect(where(router)).toMatch(/^\/en-US\/passport\/signin/);
    expect(localStorage.getItem('ciam_origin_url')).toBe('/en-US/admin/audit?x=1');
  });

  it('no session at all: the chunk goes to sign-in before asking anything', async () => {
    const router = await renderApp(
      [
        { path: '/:language/admin/*', element: <ConsoleChunk /> },
        { path: '/:language/passport/signin', element: <p>sign-in page</p> },
      ],
      '/zh-CN/admin/accounts/u1',
      { locale: 'zh-CN' },
    );
    expect(where(router)).toBe('/zh-CN/passport/signin');
    expect(localStorage.getItem('ciam_origin_url')).toBe('/zh-CN/admin/accounts/u1');
  });

  it('a role revoked while the console is open: the next answer closes it', async () => {
    const { fake } = await open('/en-US/admin', 'viewer');
    fake.answers['GET /admin/search?q=%2B8613800000000'] = () => [403, { reason: 'PERMISSION_DENIED', message: '', code: 403 }];
    fireEvent.click(screen.getByRole('link', { name: 'Accounts' }));
    await settle();
    fireEvent.change(screen.getByLabelText('Mail, phone, username, display name or company'), { target: { value: '+8613800000000' } });
    fireEvent.submit(screen.getByTestId('search-form'));
    await settle();
    expect(screen.getByTestId('console-noRole')).toBeTruthy();
  });
});

describe('addresses', () => {
  it('each screen has one; anything else is the overview', () => {
    for (const ok of ['', '/', '/accounts', '/accounts/u1', '/apps', '/apps/a1', '/audit', '/roles']) expect(screenOf(ok), ok).not.toBeNull();
    for (const bad of ['/x', '/audit/1', '/accounts/u1/more', '/roles/r']) expect(screenOf(bad), bad).toBeNull();
  });

  it('an unknown one goes to the overview', async () => {
    const { router } = await open('/en-US/admin/nowhere', 'viewer');
    expect(where(router)).toBe('/en-US/admin');
  });
});

describe('the overview', () => {
  it('shows the key numbers and five charts, each with its table', async () => {
    await open('/en-US/admin', 'viewer');
    expect(screen.getByTestId('total-accounts').textContent).toBe('1,234');
    const charts = ['chart-new', 'chart-active', 'chart-outcome', 'chart-method', 'chart-lockouts'].map((id) => screen.getByTestId(id));
    for (const c of charts) {
      expect(c.tagName).toBe('FIGURE');
      expect(c.querySelector('.plot')?.getAttribute('aria-hidden')).toBe('true');
      const table = c.querySelector('table')!;
      expect(table.querySelector('caption')?.textContent).toBe(c.querySelector('h2')?.textContent);
      expect(table.querySelectorAll('tbody tr')).toHaveLength(30);
    }
    const outcome = charts[2]!;
    expect([...outcome.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual(['Day', 'Succeeded', 'Wrong password or code', 'Locked', 'Second step failed', 'Other', 'Total']);
    expect([...outcome.querySelectorAll('tbody tr:last-child td')].map((td) => td.textContent)).toEqual(['4', '2', '1', '0', '0', '7']);
    expect(outcome.querySelectorAll('rect')).toHaveLength(3);
    expect(within(charts[4]!).getByText(/most on 2026-01-30/)).toBeTruthy();
  });

  it('in Chinese', async () => {
    await open('/zh-CN/admin', 'viewer', {}, 'zh-CN');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('概览');
    expect(screen.getByTestId('chart-lockouts').querySelector('caption')?.textContent).toBe('每日锁定次数');
  });

  it('rounds the scale up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 12, 51, 999].map(niceMax)).toEqual([1, 1, 5, 10, 20, 100, 1000]);
  });
});
