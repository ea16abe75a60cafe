// The route error screen and the shell's footer, in both languages.
import { act, cleanup, render, screen } from '@testing-library/react';
import { RawIntlProvider } from 'react-intl';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pkg from '../../../package.json' with { type: 'json' };
import { browserRouter, memoryRouter, testIntl } from '../testing/render-app';
import { Catch, ErrorScreen } from './error-screen';
import { AppRoutes } from './router';
import { BASE } from '../lib/api-url';

const TEXT = {
  'en-US': { title: 'Something went wrong', reload: 'Reload', signin: 'Back to sign-in', website: 'Company website' },
  'zh-CN': { title: '出错了', reload: '重新加载', signin: '返回登录', website: '公司官网' },
} as const;
type Locale = keyof typeof TEXT;

const intlFor = (locale: Locale) => testIntl(locale);

const settle = () => act(async () => void (await new Promise((r) => setTimeout(r, 20))));
let bodies: Record<string, string>[];

beforeEach(() => {
  bodies = [];
  localStorage.clear();
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init?: RequestInit) => {
      if (url === `${BASE}/client-errors`) bodies.push(JSON.parse(String(init?.body)));
      return new Promise(() => {});
    }),
  );
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

for (const locale of ['en-US', 'zh-CN'] as const) {
  describe(`error screen (${locale})`, () => {
    it('shows a localised message with a reload and a way back to sign-in, and reports the error once', async () => {
      function Broken(): never {
        throw new Error(`${locale} render failed for ann@example.com`);
      }
      const { element } = memoryRouter(
        [{ path: '/:language/broken', element: <Catch fallback={(e) => <ErrorScreen error={e} />}><Broken /></Catch> }],
        `/${locale}/broken?cTicket=ST-1`,
      );
      render(
        <RawIntlProvider value={intlFor(locale)}>
          {element}
        </RawIntlProvider>,
      );
      await settle();
      const alert = screen.getByRole('alert');
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(TEXT[locale].title);
      expect(screen.getByRole('button', { name: TEXT[locale].reload })).toBeTruthy();
      expect(screen.getByRole('link', { name: TEXT[locale].signin }).getAttribute('href')).toBe(`/${locale}/passport/signin`);
      expect(alert.textContent).not.toContain('ann@example.com');
      // One report per error (a page load sends each distinct error once; see error-report.ts).
      await vi.waitFor(() => expect(bodies).toHaveLength(1));
      expect(bodies[0].kind).toBe('route');
      expect(bodies[0].message).toBe(`Error: ${locale} render failed for [email]`);
    });
  });

  describe(`footer (${locale})`, () => {
    it('shows the release string and links the website of the path', async () => {
      localStorage.setItem('umi_locale', locale);
      window.history.replaceState(null, '', `/${locale}/passport/signin`);
      render(
        <RawIntlProvider value={intlFor(locale)}>
          {browserRouter(<AppRoutes />).element}
        </RawIntlProvider>,
      );
      await settle();
      const footer = screen.getByRole('contentinfo');
      expect(footer.querySelector('[data-testid="version"]')?.textContent).toBe(`release.${pkg.version}`);
      const link = screen.getByRole('link', { name: TEXT[locale].website });
      expect(link.getAttribute('href')).toBe(locale === 'zh-CN' ? __CIAM_WEBSITE_ZH__ : __CIAM_WEBSITE_EN__);
    });
  });
}
