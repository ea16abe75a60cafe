// The agreement documents: routing of :doc, titles, and the navigation between them.
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../testing/render-app';
import Agreement from './agreement';

function show(path: string, locale: 'en-US' | 'zh-CN') {
  return renderApp([{ path: '/:language/agreement/:doc', element: <Agreement /> }], path, { locale });
}

afterEach(cleanup);

describe('agreement', () => {
  it('sends an unknown document to the privacy policy, keeping the query', async () => {
    const router = await show('/en-US/agreement/cookies?serviceUrl=https://app.example/x&a=1', 'en-US');
    expect(`${router.state.location.pathname}${router.state.location.search}`).toBe('/en-US/agreement/privacy?serviceUrl=https://app.example/x&a=1');
  });

  it.each([
    ['privacy', 'Privacy policy', '隐私政策'],
    ['protocols', 'Service agreement', '服务协议'],
    ['manual', 'User manual', '用户手册'],
  ])('titles %s in both languages, with one h1 and sections under it', async (doc, enTitle, zhTitle) => {
    await show(`/en-US/agreement/${doc}`, 'en-US');
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual([enTitle]);
    expect(document.title).toBe(enTitle);
    expect(screen.getAllByRole('heading', { level: 2 }).length).toBeGreaterThanOrEqual(4);
    cleanup();
    await show(`/zh-CN/agreement/${doc}`, 'zh-CN');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(zhTitle);
  });

  it('marks the current document in the navigation and keeps the query on its links', async () => {
    await show('/zh-CN/agreement/manual?a=1', 'zh-CN');
    const current = screen.getByRole('link', { current: 'page' });
    expect(current.textContent).toBe('用户手册');
    expect(screen.getByRole('link', { name: '隐私政策' }).getAttribute('href')).toBe('/zh-CN/agreement/privacy?a=1');
  });

  it('lists every local-storage key the portal uses in the privacy policy', async () => {
    await show('/en-US/agreement/privacy', 'en-US');
    const keys = [...document.querySelectorAll('.doc-keys code')].map((c) => c.textContent);
    expect(keys).toEqual(expect.arrayContaining(['ciam_token', 'lastActionTime', 'umi_locale', 'country', 'ciam_accounts']));
  });
});
