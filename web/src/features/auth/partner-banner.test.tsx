// "To continue to <app>" on the sign-in and sign-up screens (issue 23 §4): shown, with the logo,
// only when the query names a listed app; the app list is asked for only then.
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { type Call, fakeApi } from '../../testing/fake-api';
import { renderApp, resetApp, settle } from '../../testing/render-app';
import Register from './register';
import SignIn from './signin';

const LIST = {
  apps: [
    { appId: 'a1', name: '精工商城', url: 'https://shop.example.com/', recommended: false, logo: 'https://cdn.example.com/shop.png' },
    { appId: 'a2', name: 'No logo', url: 'https://b.example.com/', recommended: false, logo: '' },
  ],
};
let calls: Call[] = [];

async function show(path: string, locale: 'en-US' | 'zh-CN' = 'zh-CN') {
  ({ calls } = fakeApi({ [`GET /app/language/${locale}`]: () => [200, LIST] }));
  await renderApp(
    [
      { path: '/:language/passport/signin', element: <SignIn /> },
      { path: '/:language/passport/register', element: <Register /> },
    ],
    path,
    { locale },
  );
  await settle();
}

afterEach(() => {
  resetApp();
  localStorage.clear();
});

describe('the partner named on sign-in and sign-up', () => {
  it.each(['signin', 'register'])('%s: "继续前往 <app>" with its logo (48 px, alt text) when the query names it', async (screenName) => {
    await show(`/zh-CN/passport/${screenName}?appId=a1&serviceUrl=https://shop.example.com/cb`);
    // The banner's chunk loads lazily (its first import may outlast settle()).
    expect((await screen.findByTestId('partner-banner', {}, { timeout: 5000 })).textContent).toBe('继续前往 精工商城');
    const img = screen.getByRole('img', { name: '精工商城 的标志' }) as HTMLImageElement;
    expect([img.getAttribute('src'), img.width, img.height]).toEqual(['https://cdn.example.com/shop.png', 48, 48]);
  });

  it('the name alone when the app has no logo; in English', async () => {
    await show('/en-US/passport/signin?appId=a2&serviceUrl=https://b.example.com/cb', 'en-US');
    expect((await screen.findByTestId('partner-banner', {}, { timeout: 5000 })).textContent).toBe('to continue to No logo');
    expect(screen.queryByRole('img')).toBeNull();
  });

  it('nothing for an app the list does not have, and no call at all without an appId', async () => {
    await show('/zh-CN/passport/signin?appId=nope&serviceUrl=https://x.example.com/cb');
    expect(screen.queryByTestId('partner-banner')).toBeNull();
    resetApp();
    await show('/zh-CN/passport/signin');
    expect(screen.queryByTestId('partner-banner')).toBeNull();
    expect(calls.filter((c) => c.path.startsWith('/app/language'))).toHaveLength(0);
  });
});
