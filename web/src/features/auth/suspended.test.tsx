// Issue 34 item 4: a suspended account's proven owner (the right password, or a completed reset
// by code) is told the truth, with the operator's support contact, where the sign-in and the
// reset end; in both languages. A wrong password stays "Incorrect account or password".
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import * as toast from '../../lib/toast';
import { fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import FindPassword from './find-password';
import SignIn from './signin';

afterEach(() => resetApp());

const SUSPENDED: [number, unknown] = [403, { reason: 'ACCOUNT_SUSPENDED', message: 'This account is suspended: contact support', code: 403 }];
const input = (f: HTMLFormElement, name: string) => f.elements.namedItem(name) as HTMLInputElement;
const type = (f: HTMLFormElement, values: Record<string, string>) => {
  for (const [k, v] of Object.entries(values)) fireEvent.change(input(f, k), { target: { value: v } });
};
const alertText = () => within(screen.getByTestId('form-alert')).getByRole('alert').textContent ?? '';

describe('a suspended account is told so after a right password', () => {
  it('en-US: atop the sign-in form, with the support contact, focused, no toast, no navigation', async () => {
    fakeApi({ 'POST /auth/login/password': () => SUSPENDED });
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin');
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    type(f, { account: 'ann@example.com', password: 'Ciam-Demo-2026!' });
    fireEvent.submit(f);
    await settle();
    expect(alertText()).toBe(`This account is suspended and cannot sign in. To learn why or to have it reactivated, contact ${__CIAM_SUPPORT_EN__}.`);
    expect(document.activeElement).toBe(screen.getByTestId('form-alert'));
    expect(toast.current()).toEqual([]);
    expect(screen.getByTestId('signin-password')).toBeTruthy();
  });

  it('zh-CN: the same in Chinese, with the Chinese contact', async () => {
    fakeApi({ 'POST /auth/login/password': () => SUSPENDED });
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/zh-CN/passport/signin', { locale: 'zh-CN' });
    const f = screen.getByTestId('signin-password') as HTMLFormElement;
    type(f, { account: 'ann@example.com', password: 'Ciam-Demo-2026!' });
    fireEvent.submit(f);
    await settle();
    expect(alertText()).toBe(`该账号已被暂停，无法登录。如需了解原因或恢复账号，请联系：${__CIAM_SUPPORT_ZH__}。`);
  });
});

describe('and after a completed reset by code', () => {
  for (const [locale, words] of [['en-US', 'is suspended'], ['zh-CN', '已被暂停']] as const) {
    it(`${locale}: the reset form says it (the password is set) instead of going to the sign-in`, async () => {
      const api = fakeApi({ 'PATCH /auth/pwd': () => SUSPENDED });
      await renderApp([{ path: '/:language/find/password', element: <FindPassword /> }], `/${locale}/find/password`, { locale });
      const f = screen.getByTestId('find-password') as HTMLFormElement;
      type(f, { account: 'ann@example.com', code: '123456', password: 'Ciam-Demo-2026!', confirmPassword: 'Ciam-Demo-2026!' });
      fireEvent.submit(f);
      await settle();
      expect(api.callsTo('PATCH', '/auth/pwd')).toHaveLength(1);
      expect(alertText()).toContain(words);
      expect(alertText()).toContain(locale === 'en-US' ? __CIAM_SUPPORT_EN__ : __CIAM_SUPPORT_ZH__);
      expect(screen.getByTestId('find-password')).toBeTruthy();
      expect(toast.current()).toEqual([]);
    });
  }
});
