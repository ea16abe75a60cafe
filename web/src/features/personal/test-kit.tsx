// Shared by the personal pages' tests (not shipped: only *.test.tsx import it): the pages in the
// test app (testing/render-app.tsx), the fake API (testing/fake-api.ts) and small DOM helpers.
import { fireEvent, screen } from '@testing-library/react';
import { TOTP_ENABLED_EVENT } from '../../lib/mfa';
import { type Answer, type Call, fakeApi } from '../../testing/fake-api';
import { renderApp } from '../../testing/render-app';
import Info from './info';
import Secure from './secure';
import type { UserInfo } from '../../lib/api-types.gen';

export const user: UserInfo = {
  userId: 'u1', userName: 'ann', mail: 'an***@example.com', phone: null, fullMail: 'ann@example.com', fullPhone: null, company: 'Acme', duty: null, address: null,
  displayName: null, country: 'CN', avatar: null, advertisement: 'unsubscribe', tag: { eiamUid: null }, enableTotp: false,
  isComplete: false, isSubscribe: false, isEiamUser: false,
};

export type { Call } from '../../testing/fake-api';
export { reply } from '../../testing/fake-api';
export { settle } from '../../testing/render-app';

export const state: { calls: Call[]; answers: Record<string, Answer> } = { calls: [], answers: {} };

/** Answers every call from `state.answers` (default 200 {ok: true}) and records it. */
export function mockFetch(defaults: Record<string, () => [number, unknown]>) {
  const fake = fakeApi(defaults);
  state.calls = fake.calls;
  state.answers = fake.answers;
}

export const callsTo = (method: string, path: string) => state.calls.filter((c) => c.method === method && c.path === path);

export function show(path: string, locale: 'en-US' | 'zh-CN' = 'en-US') {
  return renderApp(
    [
      { path: '/:language/personal/info', element: <Info /> },
      { path: '/:language/personal/secure', element: <Secure /> },
      { path: '/:language/passport/signin', element: <p>sign-in page</p> },
    ],
    path,
    // As app.tsx does: a two-factor change elsewhere reloads the account.
    { locale, onTotpEnabled: () => window.dispatchEvent(new CustomEvent(TOTP_ENABLED_EVENT)) },
  );
}

/** The form `testId`, opened first when it is closed behind its row (its `{testId}-open` button, fold.tsx). */
export const form = (testId: string) => {
  const open = screen.queryByTestId(testId);
  if (open) return open as HTMLFormElement;
  fireEvent.click(screen.getByTestId(`${testId}-open`));
  return screen.getByTestId(testId) as HTMLFormElement;
};
export const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
export const errorOf = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id))
    .find((e) => e?.classList.contains('field-error'))?.textContent;
