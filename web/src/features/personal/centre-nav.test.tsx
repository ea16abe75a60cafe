// The account centre's side navigation: one real link per section under the two personal pages,
// aria-current on the section the address points at, and the focus moved to that section.
import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentSection } from './centre-nav';
import { mockFetch, show, user } from './test-kit';

beforeEach(() => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  mockFetch({
    'GET /auth/info': () => [200, user],
    'GET /auth/sessions': () => [200, { sessions: [] }],
    'GET /auth/activity': () => [200, { events: [] }],
    'GET /auth/privacy': () => [200, { settings: { analytics: false, marketing: false }, history: [] }],
  });
});
afterEach(() => {
  cleanup();
  localStorage.clear();
});

const nav = () => screen.getByRole('navigation', { name: 'Account centre sections' });

describe('account centre navigation', () => {
  it('links every section by address, in both languages', async () => {
    await show('/en-US/personal/info');
    const links = within(nav()).getAllByRole('link');
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Profile', '/en-US/personal/info#profile'],
      ['Sign-in and security', '/en-US/personal/secure#security'],
      ['Passkeys', '/en-US/personal/secure#passkeys'],
      ['Two-factor authentication', '/en-US/personal/secure#two-factor'],
      ['Devices and activity', '/en-US/personal/secure#sessions'],
      ['Privacy', '/en-US/personal/secure#privacy'],
      ['Apps', '/en-US/personal/info#apps'],
    ]);
    // Without a hash the page's first section is the current one.
    expect(within(nav()).getByRole('link', { current: 'location' }).textContent).toBe('Profile');
    cleanup();
    await show('/zh-CN/personal/secure', 'zh-CN');
    const zh = within(screen.getByRole('navigation', { name: '账号中心栏目' })).getAllByRole('link');
    expect(zh.map((a) => a.textContent)).toEqual(['个人资料', '登录与安全', '通行密钥', '两步验证', '登录设备与活动', '隐私', '应用']);
    expect(zh[1]?.getAttribute('aria-current')).toBe('location');
  });

  it('marks and focuses the section of the address, and follows a change of the hash', async () => {
    const router = await show('/en-US/personal/secure#two-factor');
    expect(within(nav()).getByRole('link', { current: 'location' }).textContent).toBe('Two-factor authentication');
    expect(document.activeElement?.id).toBe('totp-title');
    await act(() => router.navigate('/en-US/personal/secure#sessions'));
    expect(within(nav()).getByRole('link', { current: 'location' }).textContent).toBe('Devices and activity');
    expect(document.activeElement?.id).toBe('sessions-title');
    expect(document.getElementById('sessions')?.contains(document.activeElement)).toBe(true);
  });

  it('reads the section from a hash, falling back to the page’s first', () => {
    expect(currentSection('secure', '#privacy')).toBe('privacy');
    expect(currentSection('secure', '#profile')).toBe('security');
    expect(currentSection('info', '')).toBe('profile');
    expect(currentSection('info', '#apps')).toBe('apps');
  });
});
