// The shell's idle watch (spec §4/§9): 30 minutes without an action ends the session with
// 'Your session has expired. Please log in again'; an action in any tab of the origin keeps it.
import { act, cleanup, fireEvent } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentApi } from '../testing/fake-api';
import { browserRouter, renderWithIntl } from '../testing/render-app';
import * as toast from '../lib/toast';
import { AppRoutes } from './router';

const MIN = 60_000;
const realWait = (ms: number) => act(async () => void (await new Promise((r) => setTimeout(r, ms))));

async function open(url: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  window.history.replaceState(null, '', url);
  const { element, router } = browserRouter(<AppRoutes />);
  const r = renderWithIntl(element, locale);
  for (let i = 0; i < 5; i++) await realWait(5);
  return { router, ...r, path: () => `${router.state.location.pathname}${router.state.location.search}` };
}
/** The sign-in card's notice, once the lazy sign-in screen is drawn (its chunk is transformed on
 * first use: on a loaded machine that takes seconds, so the wait is long and ends when drawn). */
async function notice() {
  for (let i = 0; i < 500 && !document.querySelector('[data-testid="signin-notice"]'); i++) await realWait(10);
  return document.querySelector('[data-testid="signin-notice"]')?.textContent;
}
const advance = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

beforeEach(() => {
  // Only the clock and the interval are fake: lazy chunks and toasts run on real time.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
  localStorage.clear();
  localStorage.setItem('umi_locale', 'en-US');
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
  silentApi();
});
afterEach(() => {
  cleanup();
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.unstubAllGlobals();
  vi.useRealTimers();
  localStorage.clear();
});

describe('idle watch', () => {
  it('ends the session after 30 minutes without an action, with the message, keeping the query', async () => {
    const app = await open('/en-US/personal/info?serviceUrl=https://app.example.com');
    expect(app.path()).toBe('/en-US/personal/info?serviceUrl=https://app.example.com');
    await advance(30 * MIN);
    expect(localStorage.getItem('ciam_token')).toBe('u1.token');
    await advance(30_000);
    await realWait(10);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(localStorage.getItem('lastActionTime')).toBeNull();
    expect(app.router.state.location.pathname).toBe('/en-US/passport/signin');
    expect(new URLSearchParams(app.router.state.location.search).get('serviceUrl')).toBe('https://app.example.com');
    // Said in the sign-in card (not a toast that would outlive the screen).
    expect(await notice()).toBe('Your session has expired. Please log in again');
    expect(toast.current()).toEqual([]);
    // And the page to come back to after signing in again (ciam_origin_url).
    expect(localStorage.getItem('ciam_origin_url')).toBe('/en-US/personal/info?serviceUrl=https://app.example.com');
  });

  it('in Chinese', async () => {
    localStorage.setItem('umi_locale', 'zh-CN');
    const app = await open('/zh-CN/personal/secure', 'zh-CN');
    await advance(31 * MIN);
    await realWait(10);
    expect(app.router.state.location.pathname).toBe('/zh-CN/passport/signin');
    expect(await notice()).toBe('您的会话已过期，请重新登录');
  });

  it('an expired session is ended at once when the app opens', async () => {
    localStorage.setItem('lastActionTime', String(Date.now() - 31 * MIN));
    await open('/en-US/passport/signin');
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(await notice()).toBe('Your session has expired. Please log in again');
  });

  it('a click or a key press counts as an action', async () => {
    const app = await open('/en-US/personal/info');
    await advance(20 * MIN);
    fireEvent.click(document.body);
    await advance(20 * MIN);
    fireEvent.keyDown(document.body, { key: 'a' });
    await advance(20 * MIN);
    expect(localStorage.getItem('ciam_token')).toBe('u1.token');
    expect(app.path()).toBe('/en-US/personal/info');
    await advance(11 * MIN);
    await realWait(10);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(app.router.state.location.pathname).toBe('/en-US/passport/signin');
  });

  it('an action in another tab (shared localStorage) keeps this tab signed in', async () => {
    const app = await open('/en-US/personal/info');
    for (let i = 0; i < 4; i++) {
      await advance(20 * MIN);
      localStorage.setItem('lastActionTime', String(Date.now())); // the other tab
    }
    expect(localStorage.getItem('ciam_token')).toBe('u1.token');
    expect(app.path()).toBe('/en-US/personal/info');
    expect(toast.current()).toEqual([]);
  });

  it('a click after the 30 minutes does not revive the session', async () => {
    await open('/en-US/passport/signin');
    vi.setSystemTime(Date.now() + 45 * MIN); // the machine slept: no interval ran
    fireEvent.click(document.body);
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(localStorage.getItem('lastActionTime')).toBeNull();
  });

  it('no session: no message, ever', async () => {
    localStorage.removeItem('ciam_token');
    await open('/en-US/passport/signin');
    await advance(120 * MIN);
    fireEvent.click(document.body);
    expect(toast.current()).toEqual([]);
  });
});

describe('in another site\'s frame', () => {
  const framed = (on: boolean) => Object.defineProperty(window, 'top', { configurable: true, value: on ? {} : window });
  afterEach(() => framed(false));

  it('only the embedded sign-in renders; any other screen offers to open in its own window', async () => {
    framed(true);
    const app = await open('/en-US/find/password?appId=a');
    expect(app.getByRole('alert').textContent).toContain('This page opens in its own window.');
    const link = app.getByRole('link', { name: 'Open Ciam' });
    expect(link.getAttribute('target')).toBe('_top');
    expect(app.container.querySelector('form')).toBeNull();
    cleanup();
    const embedded = await open('/en-US/embedded/signin?appId=a&serviceUrl=https://host.example.com/cb');
    expect(embedded.queryByText('This page opens in its own window.')).toBeNull();
  });

  it('not framed: screens render as usual', async () => {
    const app = await open('/en-US/find/password');
    expect(app.queryByText('This page opens in its own window.')).toBeNull();
  });
});

describe('skip link', () => {
  it('is the first tab stop of the page and points at the main content, which can take the focus', async () => {
    localStorage.removeItem('ciam_token');
    await open('/zh-CN/passport/signin', 'zh-CN');
    for (let i = 0; i < 500 && !document.querySelector('main h1'); i++) await realWait(10);
    const focusable = document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex="0"]');
    const skip = focusable[0]!;
    expect(skip.getAttribute('data-testid')).toBe('skip-link');
    expect(skip.textContent).toBe('跳到主要内容');
    expect(skip.getAttribute('href')).toBe('#main');
    // Following the fragment focuses `main` (the browser does it: tabIndex -1; e2e phone-centres).
    const main = document.getElementById('main')!;
    expect(main.tagName).toBe('MAIN');
    expect(main.getAttribute('tabindex')).toBe('-1');
  });
});
