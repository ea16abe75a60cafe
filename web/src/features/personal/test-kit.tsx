// Shared by the personal pages' tests (not shipped: only *.test.tsx import it): a router with the
// pages, a fetch mock answering by "METHOD /path", and small DOM helpers.
import { act, render, screen } from '@testing-library/react';
import { createIntl, createIntlCache, type MessageFormatElement, RawIntlProvider } from 'react-intl';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import * as api from '../../lib/api';
import { TOTP_ENABLED_EVENT } from '../../lib/mfa';
import { en, zh } from '../../testing/messages';
import Info from './info';
import Secure from './secure';
import type { UserInfo } from '../../lib/api-types.gen';

export const user: UserInfo = {
  userId: 'u1', userName: 'ann', mail: 'an***@example.com', phone: null, company: 'Acme', duty: null, address: null,
  displayName: null, country: 'CN', avatar: null, advertisement: 'unsubscribe', tag: { eiamUid: null }, enableTotp: false,
  isComplete: false, isSubscribe: false, isEiamUser: false,
};

export type Call = { method: string; path: string; body: unknown; raw: BodyInit | null | undefined; headers: Headers };
export const state: { calls: Call[]; answers: Record<string, () => [number, unknown]> } = { calls: [], answers: {} };

export function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Answers every call from `state.answers` (default 200 {ok: true}) and records it. */
export function mockFetch(defaults: Record<string, () => [number, unknown]>) {
  state.calls = [];
  state.answers = { ...defaults };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const path = url.replace('/ciam/v1', '');
      const method = init.method ?? 'GET';
      let body: unknown;
      try {
        body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
      } catch {
        body = undefined;
      }
      state.calls.push({ method, path, body, raw: init.body, headers: new Headers(init.headers) });
      const [status, answer] = state.answers[`${method} ${path}`]?.() ?? [200, { ok: true }];
      return reply(status, answer);
    }),
  );
}

export const callsTo = (method: string, path: string) => state.calls.filter((c) => c.method === method && c.path === path);

export async function settle(rounds = 5) {
  for (let i = 0; i < rounds; i++) await act(async () => new Promise((r) => setTimeout(r, 5)));
}

export async function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
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
  // As app.tsx does: server reasons are translated, navigation goes through the router.
  api.configure({
    locale: () => locale,
    translate: (id, values) => {
      const descriptor = { id };
      return messages[id] ? intl.formatMessage(descriptor, values) : null;
    },
    navigate: (to) => void router.navigate(to, { replace: true }),
    onNeedTotp: () => {},
    onTotpEnabled: () => window.dispatchEvent(new CustomEvent(TOTP_ENABLED_EVENT)),
  });
  render(
    <RawIntlProvider value={intl}>
      <RouterProvider router={router} />
    </RawIntlProvider>,
  );
  await settle();
  return router;
}

export const form = (testId: string) => screen.getByTestId(testId) as HTMLFormElement;
export const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
export const errorOf = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id))
    .find((e) => e?.classList.contains('field-error'))?.textContent;
