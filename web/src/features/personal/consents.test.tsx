// The authorized apps of the Personal Center: listed from GET /auth/consents, revoked one by one.
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as toast from '../../lib/toast';
import { callsTo, mockFetch, settle, show, state, user } from './test-kit';

const CONSENTS = {
  apps: [
    { appId: 'a1', name: 'Factory Portal', logo: 'https://cdn.example.com/f.png', scopes: ['email', 'avatar'], grantedAt: 1_760_000_000 },
    { appId: 'a 2', name: 'Docs', logo: 'javascript:alert(1)', scopes: [], grantedAt: 1_750_000_000 },
  ],
};

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/apps': () => [200, { apps: [] }],
    'GET /app/language/en-US': () => [200, { apps: [] }],
    'GET /app/language/zh-CN': () => [200, { apps: [] }],
    'GET /auth/consents': () => [200, CONSENTS],
  });
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  localStorage.clear();
});

const rows = () => screen.queryAllByTestId('consent');

describe('authorized apps', () => {
  it('lists the apps the user allowed, with what each can see', async () => {
    await show('/en-US/personal/info');
    expect(callsTo('GET', '/auth/consents')).toHaveLength(1);
    expect(rows().map((r) => r.getAttribute('data-app-id'))).toEqual(['a1', 'a 2']);
    expect(rows()[0].textContent).toContain('Factory Portal');
    expect(rows()[0].textContent).toContain('Can see: Your avatar and Your e-mail address');
    expect(rows()[1].textContent).toContain('Can see who you are');
    // Only an http(s) logo is drawn.
    expect(within(rows()[0]).getByRole('img').getAttribute('alt')).toBe('Logo of Factory Portal');
    expect(within(rows()[1]).queryByRole('img')).toBeNull();
    expect(within(rows()[0]).getByRole('button', { name: 'Revoke access for Factory Portal' })).toBeTruthy();
  });

  it('revokes one app, removes it from the list and says so', async () => {
    state.answers['DELETE /auth/consents/a%202'] = () => [200, { ok: true }];
    await show('/en-US/personal/info');
    fireEvent.click(within(rows()[1]).getByRole('button'));
    // It asks first, naming the app; Escape (cancel) keeps it.
    const dialog = screen.getByTestId('consent-revoke-dialog');
    expect(dialog.textContent).toContain('Revoke access for Docs?');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/auth/consents/a%202')).toHaveLength(0);
    fireEvent.click(within(rows()[1]).getByRole('button'));
    fireEvent.click(screen.getByTestId('consent-revoke-confirm'));
    await settle();
    expect(callsTo('DELETE', '/auth/consents/a%202')).toHaveLength(1);
    expect(rows().map((r) => r.getAttribute('data-app-id'))).toEqual(['a1']);
    expect(screen.getByTestId('consents-status').textContent).toBe('Docs can no longer use your account. It will ask you again next time.');
    expect(document.activeElement?.id).toBe('consents-title');
  });

  it('keeps the app when the server refuses, and tells the user in the section', async () => {
    state.answers['DELETE /auth/consents/a1'] = () => [503, { reason: 'SERVICE_UNAVAILABLE', message: 'busy', code: 503 }];
    await show('/en-US/personal/info');
    fireEvent.click(within(rows()[0]).getByRole('button'));
    fireEvent.click(screen.getByTestId('consent-revoke-confirm'));
    await settle();
    expect(rows()).toHaveLength(2);
    expect(screen.getByTestId('consents-status').textContent).toBe('');
    // Said atop the section of the button used, focused, not in a toast (issue 34 item 5).
    expect(toast.current()).toEqual([]);
    const said = document.activeElement as HTMLElement;
    expect(said.dataset.testid).toMatch(/-error$/);
    expect(said.textContent).toBe('Service busy, please retry');
  });

  it('says when no app is allowed, in both languages', async () => {
    state.answers['GET /auth/consents'] = () => [200, { apps: [] }];
    await show('/en-US/personal/info');
    expect(screen.getByTestId('consents-none').textContent).toBe('You have not allowed any application to use your account.');
    cleanup();
    await show('/zh-CN/personal/info', 'zh-CN');
    expect(screen.getByTestId('consents-none').textContent).toBe('您还没有授权任何应用使用您的账号。');
    expect(screen.getByText('已授权的应用')).toBeTruthy();
  });

  it('says when the list could not be loaded', async () => {
    state.answers['GET /auth/consents'] = () => [500, { reason: 'INTERNAL_SERVER_ERROR', message: '', code: 500 }];
    await show('/en-US/personal/info');
    expect(screen.getByTestId('consents').textContent).toContain('The authorized apps could not be loaded.');
  });
});
