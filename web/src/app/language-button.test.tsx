// The header's language button (WCAG 2.5.3 label in name): its accessible name is the text it
// shows, in the language it switches to.
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { silentApi } from '../testing/fake-api';
import { browserRouter, renderWithIntl } from '../testing/render-app';
import { AppRoutes } from './router';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

describe('language button', () => {
  for (const [locale, shows, lang] of [
    ['en-US', '简体中文', 'zh-CN'],
    ['zh-CN', 'English', 'en-US'],
  ] as const) {
    it(`is named by what it shows on a ${locale} page`, async () => {
      localStorage.setItem('umi_locale', locale);
      silentApi();
      window.history.replaceState(null, '', `/${locale}/passport/signin`);
      const { element } = browserRouter(<AppRoutes />);
      renderWithIntl(element, locale);
      await act(async () => void (await new Promise((r) => setTimeout(r, 20))));
      const button = screen.getByRole('button', { name: shows });
      expect(button.getAttribute('aria-label')).toBeNull();
      expect(button.getAttribute('lang')).toBe(lang);
      expect(button.closest('header')).not.toBeNull();
    });
  }
});
