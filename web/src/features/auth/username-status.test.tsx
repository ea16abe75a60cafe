// Sign-up says whether the username is free as it is typed (issue 34 item 1): after a pause, only
// for a name the rules accept, the latest answer only; a taken name offers a free suggestion that
// one press puts in the field; both languages.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, type Reply } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import Register from './register';
import { PAUSE_MS } from './username-status';

afterEach(() => resetApp());

const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS + 100));

async function open(locale: 'en-US' | 'zh-CN', answers: Record<string, () => Reply>) {
  const api = fakeApi(answers);
  await renderApp([{ path: '/:language/passport/register', element: <Register /> }], `/${locale}/passport/register`, { locale });
  const input = (await screen.findByTestId('register')).querySelector('input[name="userName"]') as HTMLInputElement;
  const type = async (text: string) => {
    fireEvent.change(input, { target: { value: text } });
    await settle();
  };
  return { api, input, type, status: () => screen.getByTestId('username-status') };
}

describe('the username as it is typed', () => {
  it('says a taken name before anything is sent, and its suggestion fills the field', async () => {
    const { api, input, type, status } = await open('en-US', {
      'GET /auth/username?userName=zhangwei': () => [200, { userName: 'zhangwei', available: false, suggestion: 'zhangwei27' }],
      'GET /auth/username?userName=zhangwei27': () => [200, { userName: 'zhangwei27', available: true, suggestion: null }],
    });
    expect(status().getAttribute('aria-live')).toBe('polite');
    await type('zhang');
    await type('zhangwei');
    expect(status().textContent).toContain('Checking');
    await pause();
    await settle();
    // One question, for the name typing paused on.
    expect(api.calls.filter((c) => c.path.startsWith('/auth/username')).map((c) => c.path)).toEqual(['/auth/username?userName=zhangwei']);
    expect(status().textContent).toContain('zhangwei is taken.');
    fireEvent.click(screen.getByTestId('use-suggestion'));
    await settle();
    expect(input.value).toBe('zhangwei27');
    await pause();
    await settle();
    expect(status().textContent).toContain('zhangwei27 is available.');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('refuses at the field, as it is typed, a name the rules refuse, asking nothing; says the answer in Chinese', async () => {
    const { api, input, type, status } = await open('zh-CN', {
      'GET /auth/username?userName=%E5%BC%A0%E4%BC%9F': () => [200, { userName: '张伟', available: true, suggestion: null }],
    });
    const error = () => document.getElementById(input.getAttribute('aria-describedby')!.split(' ').at(-1)!)!;
    await type('zhang  wei');
    await pause();
    await settle();
    expect(api.calls.filter((c) => c.path.startsWith('/auth/username'))).toEqual([]);
    expect(status().textContent).toBe('');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(error().textContent).toBe('用户名需 2 到 32 个字符，词之间只能有一个空格');
    expect(error().getAttribute('role')).toBe('alert');
    // One character is not refused while typing (every name starts with one).
    await type('张');
    await pause();
    await settle();
    expect(input.getAttribute('aria-invalid')).toBe('false');
    await type('张伟');
    await pause();
    await settle();
    expect(status().textContent).toContain('张伟 可以使用。');
  });

  it('a name with one space between words is asked about, and accepted', async () => {
    const { api, input, type, status } = await open('en-US', {
      'GET /auth/username?userName=Zhang%20Wei': () => [200, { userName: 'Zhang Wei', available: true, suggestion: null }],
    });
    await type('Zhang Wei');
    await pause();
    await settle();
    expect(api.calls.map((c) => c.path)).toContain('/auth/username?userName=Zhang%20Wei');
    expect(status().textContent).toContain('Zhang Wei is available.');
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });

  it('says nothing when the check fails: sign-up still answers for itself', async () => {
    const { type, status } = await open('en-US', {
      'GET /auth/username?userName=annlee': () => [503, { reason: 'SERVICE_UNAVAILABLE', message: '', code: 503 }],
    });
    await type('annlee');
    await pause();
    await settle();
    expect(status().textContent).toBe('');
  });
});
