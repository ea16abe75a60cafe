// Screens load lazily with a 120 s timeout; a failed chunk shows 'Loading chunk N failed' (spec §8/§9).
import { act, cleanup, render, screen as view } from '@testing-library/react';
import { RawIntlProvider } from 'react-intl';
import type { ReactElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testIntl } from '../testing/render-app';
import { CHUNK_TIMEOUT_MS, ChunkLoadError, Lazy, screen, withTimeout } from './lazy-screen';
import { BASE } from '../lib/api-url';

const intlFor = testIntl;

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('withTimeout', () => {
  it('the chunk timeout is 120 seconds', () => {
    expect(CHUNK_TIMEOUT_MS).toBe(120_000);
  });
  it('rejects with a ChunkLoadError after 120 s', async () => {
    vi.useFakeTimers();
    const p = withTimeout(new Promise(() => {}), 'signin');
    const seen = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(119_999);
    let settled = false;
    void p.catch(() => {}).finally(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const e = await seen;
    expect(e).toBeInstanceOf(ChunkLoadError);
    expect((e as Error).message).toBe('Loading chunk signin failed');
  });
  it('passes the module through and clears its timer', async () => {
    vi.useFakeTimers();
    await expect(withTimeout(Promise.resolve(42), 'x')).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });
  it('a failed import becomes a chunk error; a CSS failure the CSS variant', async () => {
    await expect(withTimeout(Promise.reject(new Error('Failed to fetch dynamically imported module')), 'register')).rejects.toMatchObject({ chunk: 'register', css: false });
    await expect(withTimeout(Promise.reject(new Error('Unable to preload CSS for /assets/a.css')), 'info')).rejects.toMatchObject({
      message: 'Loading CSS chunk info failed',
      css: true,
    });
  });
});

describe('Lazy', () => {
  it('shows the loading text, then the screen', async () => {
    let done!: (m: { default: () => ReactElement }) => void;
    const Screen = screen('demo', () => new Promise((r) => (done = r)));
    render(
      <RawIntlProvider value={intlFor('en-US')}>
        <Lazy>
          <Screen />
        </Lazy>
      </RawIntlProvider>,
    );
    expect(view.getByText('Loading…')).toBeTruthy();
    await act(async () => done({ default: () => <p>the screen</p> }));
    expect(view.getByText('the screen')).toBeTruthy();
  });

  it.each([
    ['en-US', 'Loading chunk register failed', 'Retry'],
    ['zh-CN', null, null],
  ] as const)('a failed chunk shows the localised message with a retry (%s)', async (locale, text, retry) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Screen = screen('register', () => Promise.reject(new Error('Failed to fetch dynamically imported module')));
    render(
      <RawIntlProvider value={intlFor(locale)}>
        <Lazy>
          <Screen />
        </Lazy>
      </RawIntlProvider>,
    );
    const alert = await view.findByRole('alert');
    expect(alert.textContent).toContain('register');
    if (text) expect(alert.textContent).toContain(text);
    const button = view.getByRole('button');
    if (retry) expect(button.textContent).toBe(retry);
    else expect(button.textContent).not.toBe('Retry');
  });
});

describe('a failed chunk is reported', () => {
  it('once, as a route error with the chunk error message', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const posted: Record<string, string>[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init?: RequestInit) => {
        if (url === `${BASE}/client-errors`) posted.push(JSON.parse(String(init?.body)));
        return new Promise(() => {});
      }),
    );
    try {
      const Screen = screen('find-password', () => Promise.reject(new Error('Failed to fetch dynamically imported module')));
      render(
        <RawIntlProvider value={intlFor('en-US')}>
          <Lazy>
            <Screen />
          </Lazy>
        </RawIntlProvider>,
      );
      await view.findByRole('alert');
      await vi.waitFor(() => expect(posted).toHaveLength(1));
      expect(posted[0]).toMatchObject({ kind: 'route', message: 'Error: Loading chunk find-password failed' });
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
