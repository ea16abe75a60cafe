// The cells as users see them (docs/multi-region.md §14): with index.html naming the other cell,
// the header names this service and links the other's same page, and a refused sign-in or a
// phone's sign-up links the other's sign-in or sign-up, in the page's language; with no such tag
// (one cell) nothing is drawn; a tag that is not an origin is ignored.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import SignIn from './signin';
import Register from './register';
import { Cell } from '../../components/cells-lazy';

function tags(cell: string, other: string) {
  for (const [name, content] of [['ciam-cell', cell], ['ciam-other-cell', other]]) {
    const m = document.createElement('meta');
    m.name = name;
    m.content = content;
    document.head.append(m);
  }
}

afterEach(() => {
  resetApp();
  localStorage.clear();
  document.head.querySelectorAll('meta[name^="ciam-"]').forEach((m) => m.remove());
});

/** Types into the sign-in form's field `name`. */
const type = (name: string, value: string) =>
  fireEvent.change(screen.getByTestId('signin-password').querySelector(`[name="${name}"]`)!, { target: { value } });

const header = (path: string, locale: 'en-US' | 'zh-CN') => renderApp([{ path: '*', element: <Cell /> }], path, { locale });

describe('the cell switch in the header', () => {
  it('names this service and links the same page of the other, in English', async () => {
    tags('global', 'https://id.example.cn');
    await header('/en-US/passport/register?appId=a1', 'en-US');
    expect((await screen.findByTestId('cell-here', {}, { timeout: 5000 })).textContent).toBe('International service');
    const other = screen.getByTestId('cell-other');
    expect(other.textContent).toBe('Mainland China service');
    // The path, not this cell's query (a partner's app is registered per cell).
    expect(other.getAttribute('href')).toBe('https://id.example.cn/en-US/passport/register');
  });

  it('in Chinese, from the mainland cell', async () => {
    tags('cn', 'https://id.example.com');
    await header('/zh-CN/passport/signin', 'zh-CN');
    expect((await screen.findByTestId('cell-here', {}, { timeout: 5000 })).textContent).toBe('中国大陆服务');
    expect(screen.getByTestId('cell-other').textContent).toBe('国际服务');
    expect(screen.getByTestId('cell-other').getAttribute('href')).toBe('https://id.example.com/zh-CN/passport/signin');
  });

  it.each([
    ['no tags (one cell)', null],
    ['a script for an origin', ['global', 'javascript:alert(1)']],
    ['a path for an origin', ['global', 'https://id.example.cn/x']],
    ['an unknown cell', ['eu', 'https://id.example.cn']],
  ] as const)('draws nothing with %s', async (_, t) => {
    if (t) tags(t[0], t[1]);
    await header('/en-US/passport/signin', 'en-US');
    expect(screen.queryByTestId('cells')).toBeNull();
  });
});

describe('told where to go', () => {
  it('a wrong password links the other service\'s sign-in, alike for every account', async () => {
    tags('global', 'https://id.example.cn');
    fakeApi({ 'POST /auth/login/password': () => [401, { reason: 'PASSWORD_ERROR', message: '', code: 401 }] });
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin', { locale: 'en-US' });
    type('account', 'someone@example.com');
    type('password', 'whatever1');
    fireEvent.submit(screen.getByTestId('signin-password'));
    const hint = await screen.findByTestId('cell-hint');
    expect(hint.textContent).toBe('Registered with the Mainland China service? Sign in there');
    expect(hint.getAttribute('href')).toBe('https://id.example.cn/en-US/passport/signin');
    // Gone with the next edit, as the refusal it explains.
    type('password', 'whatever2');
    expect(screen.queryByTestId('cell-hint')).toBeNull();
  });

  it('one cell alone shows the usual refusal only', async () => {
    fakeApi({ 'POST /auth/login/password': () => [401, { reason: 'PASSWORD_ERROR', message: '', code: 401 }] });
    await renderApp([{ path: '/:language/passport/signin', element: <SignIn /> }], '/en-US/passport/signin', { locale: 'en-US' });
    type('account', 'someone@example.com');
    type('password', 'whatever1');
    fireEvent.submit(screen.getByTestId('signin-password'));
    await screen.findByText('Incorrect account or password');
    expect(screen.queryByTestId('cell-hint')).toBeNull();
  });

  it('a phone\'s sign-up answer links the mainland service\'s sign-up, in Chinese', async () => {
    tags('global', 'https://id.example.cn');
    fakeApi({ 'POST /auth/register': () => [400, { reason: 'PHONE_MAINLAND_SERVICE_ONLY', message: '', code: 400, otherCell: 'https://id.example.cn' }] });
    await renderApp([{ path: '/:language/passport/register', element: <Register /> }], '/zh-CN/passport/register', { locale: 'zh-CN' });
    await settle();
    const form = screen.getByTestId('register');
    const set = (name: string, value: string) => fireEvent.change(form.querySelector(`[name="${name}"]`)!, { target: { value } });
    set('userName', 'mainlander');
    set('company', 'Acme');
    set('account', '13800138000');
    set('code', '123456');
    set('password', 'Str0ng!Passw0rd');
    set('confirmPassword', 'Str0ng!Passw0rd');
    fireEvent.click(form.querySelector('[name="acceptTerms"]')!);
    fireEvent.submit(form);
    expect((await screen.findByTestId('cell-hint')).textContent).toBe('前往中国大陆服务注册');
    expect(screen.getByTestId('cell-hint').getAttribute('href')).toBe('https://id.example.cn/zh-CN/passport/register');
    // Said at the account, whose next edit takes the link away.
    expect(form.querySelector('[name="account"]')!.getAttribute('aria-invalid')).toBe('true');
    set('account', 'me@example.com');
    expect(screen.queryByTestId('cell-hint')).toBeNull();
  });
});
