// The routes and routing rules of spec §2, on the real router in jsdom.
import { act, cleanup, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentApi } from '../testing/fake-api';
import { browserRouter, renderWithIntl, type TestRouter } from '../testing/render-app';
import { AppRoutes } from './router';

type Router = TestRouter;

async function settle(ms = 30) {
  for (let i = 0; i < 5; i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, ms / 5));
    });
  }
}

/** Opens `url` like a cold browser would and returns where the app ended up. */
async function open(url: string, locale: 'en-US' | 'zh-CN' = 'en-US'): Promise<{ path: string; router: Router }> {
  window.history.replaceState(null, '', url);
  const { element, router } = browserRouter(<AppRoutes />);
  renderWithIntl(element, locale);
  await settle();
  const { pathname, search } = router.state.location;
  expect(`${window.location.pathname}${window.location.search}`).toBe(`${pathname}${search}`);
  return { path: `${pathname}${search}`, router };
}

beforeEach(() => {
  localStorage.clear();
  localStorage.setItem('umi_locale', 'en-US');
  // Screens may call the API when they mount: never answer.
  silentApi();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const signedIn = () => {
  localStorage.setItem('ciam_token', 'u1.token');
  localStorage.setItem('lastActionTime', String(Date.now()));
};

describe('root and language prefix', () => {
  it('/ goes to /{lang}/passport/signin', async () => {
    expect((await open('/')).path).toBe('/en-US/passport/signin');
    localStorage.setItem('umi_locale', 'zh-CN');
    cleanup();
    expect((await open('/', 'zh-CN')).path).toBe('/zh-CN/passport/signin');
  });

  it('/ keeps the query', async () => {
    expect((await open('/?serviceUrl=https://app.example.com/cb&x=1')).path).toBe('/en-US/passport/signin?serviceUrl=https://app.example.com/cb&x=1');
  });

  it.each([
    ['/passport/signin', '/en-US/passport/signin'],
    ['/passport/register', '/en-US/passport/register'],
    ['/find/password', '/en-US/find/password'],
    ['/agreement/manual', '/en-US/agreement/manual'],
    ['/logout', '/en-US/logout'],
    ['/embedded/signin', '/en-US/embedded/signin'],
  ])('a path with no language prefix gets the detected locale: %s -> %s', async (from, to) => {
    expect((await open(from)).path).toBe(to);
  });

  it('the detected locale comes from storage, else the browser', async () => {
    localStorage.setItem('umi_locale', 'zh-CN');
    expect((await open('/passport/register', 'zh-CN')).path).toBe('/zh-CN/passport/register');
    cleanup();
    localStorage.removeItem('umi_locale');
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['fr-FR']);
    expect((await open('/passport/register', 'zh-CN')).path).toBe('/zh-CN/passport/register');
    vi.restoreAllMocks();
  });

  it('a path with no language prefix keeps its query', async () => {
    expect((await open('/passport/register?serviceUrl=https://a.example.com&b=2')).path).toBe(
      '/en-US/passport/register?serviceUrl=https://a.example.com&b=2',
    );
  });

  it('an unsupported language-like first segment is a path without a language', async () => {
    expect((await open('/fr-FR/passport/register')).path).toBe('/en-US/passport/signin');
  });

  it('a language segment in the wrong case or another region is the same page in the locale', async () => {
    localStorage.setItem('umi_locale', 'zh-CN');
    expect((await open('/zh-cn/passport/register?x=1', 'zh-CN')).path).toBe('/zh-CN/passport/register?x=1');
    cleanup();
    expect((await open('/ZH-CN/find/password', 'zh-CN')).path).toBe('/zh-CN/find/password');
    cleanup();
    expect((await open('/zh-tw/passport/register?serviceUrl=https://a.example.com/cb&b=2', 'zh-CN')).path).toBe(
      '/zh-CN/passport/register?serviceUrl=https://a.example.com/cb&b=2',
    );
    cleanup();
    expect((await open('/zh-cn', 'zh-CN')).path).toBe('/zh-CN/passport/signin');
    cleanup();
    localStorage.setItem('umi_locale', 'en-US');
    for (const from of ['/en-us/passport/register?x=1', '/en-GB/passport/register?x=1', '/en/passport/register?x=1']) {
      expect((await open(from)).path).toBe('/en-US/passport/register?x=1');
      cleanup();
    }
    // The spec's reload rule: the url takes the chosen locale, same page.
    expect((await open('/zh-cn/passport/register?x=1')).path).toBe('/en-US/passport/register?x=1');
    cleanup();
    // Spec §2: a serviceUrl with an encoded '/' does not survive a redirect.
    expect((await open('/en-us/passport/signin?serviceUrl=https%3A%2F%2Fa.example.com&b=2')).path).toBe('/en-US/passport/signin?b=2');
  });

  it('/{lang} alone goes to sign-in', async () => {
    expect((await open('/en-US')).path).toBe('/en-US/passport/signin');
    cleanup();
    expect((await open('/zh-CN/', 'zh-CN')).path).toBe('/zh-CN/passport/signin');
  });
});

describe('unknown second segment', () => {
  it.each(['/en-US/nope', '/en-US/nope/deeper', '/en-US/find', '/en-US/find/other', '/en-US/embedded', '/en-US/signout', '/en-US/passports/signin'])(
    '%s -> /en-US/passport/signin',
    async (from) => {
      expect((await open(from)).path).toBe('/en-US/passport/signin');
    },
  );
  it('keeps the query', async () => {
    expect((await open('/zh-CN/nope?a=1&serviceUrl=https://x.example.com', 'zh-CN')).path).toBe(
      '/zh-CN/passport/signin?a=1&serviceUrl=https://x.example.com',
    );
  });
});

describe('passport', () => {
  it.each(['/en-US/passport', '/en-US/passport/', '/en-US/passport/unknown', '/en-US/passport/signin/extra', '/en-US/passport/a/b/c'])('%s -> signin', async (from) => {
    expect((await open(from)).path).toBe('/en-US/passport/signin');
  });
  it.each(['/en-US/passport/signin', '/en-US/passport/register', '/en-US/passport/authorize'])('%s stays', async (p) => {
    expect((await open(p)).path).toBe(p);
  });
  it('keeps the query on the redirect', async () => {
    expect((await open('/en-US/passport/x?serviceUrl=https://app.example.com&k=v')).path).toBe(
      '/en-US/passport/signin?serviceUrl=https://app.example.com&k=v',
    );
  });
});

describe('serviceUrl on redirects', () => {
  it('is dropped when it contains an encoded = or /', async () => {
    expect((await open('/en-US/passport?serviceUrl=https%3A%2F%2Fapp.example.com&k=v')).path).toBe('/en-US/passport/signin?k=v');
    cleanup();
    expect((await open('/?serviceUrl=https://app.example.com/cb?a%3Db')).path).toBe('/en-US/passport/signin');
    cleanup();
    expect((await open('/en-US/agreement?serviceUrl=x%2fy&z=1')).path).toBe('/en-US/agreement/privacy?z=1');
  });
  it('survives two redirects in a row (no language, then a default child)', async () => {
    expect((await open('/passport?serviceUrl=https://app.example.com/cb&k=v')).path).toBe('/en-US/passport/signin?serviceUrl=https://app.example.com/cb&k=v');
    cleanup();
    expect((await open('/personal/info?serviceUrl=https://app.example.com/cb')).path).toBe('/en-US/passport/signin?serviceUrl=https://app.example.com/cb');
    cleanup();
    expect((await open('/agreement?serviceUrl=https://app.example.com/cb')).path).toBe('/en-US/agreement/privacy?serviceUrl=https://app.example.com/cb');
  });
  it('is kept otherwise', async () => {
    const { path } = await open('/en-US/agreement?serviceUrl=https://app.example.com');
    expect(new URL(path, 'http://x').searchParams.get('serviceUrl')).toBe('https://app.example.com');
  });
  it('a page that needs no redirect keeps its url untouched', async () => {
    const p = '/en-US/passport/signin?serviceUrl=https%3A%2F%2Fapp.example.com';
    expect((await open(p)).path).toBe(p);
  });
});

describe('admin (the operator console)', () => {
  it.each(['/en-US/admin', '/en-US/admin/accounts/u1'])('%s without a session -> sign-in, and back after it', async (p) => {
    // The console's own chunk decides (the app's router knows only /{lang}/admin/*): it loads first.
    await open(`${p}?a=1`);
    await waitFor(() => expect(`${window.location.pathname}${window.location.search}`).toBe('/en-US/passport/signin?a=1'), { timeout: 10_000 });
    expect(localStorage.getItem('ciam_origin_url')).toBe(`${p}?a=1`);
  });
  it.each(['/en-US/admin', '/en-US/admin/audit', '/en-US/admin/apps/a1'])('%s with a session stays (the console asks the server)', async (p) => {
    signedIn();
    expect((await open(p)).path).toBe(p);
  });
  it('an unknown second segment still goes to sign-in', async () => {
    expect((await open('/en-US/administrator')).path).toBe('/en-US/passport/signin');
  });
});

describe('personal', () => {
  it.each(['/en-US/personal', '/en-US/personal/info', '/en-US/personal/secure', '/en-US/personal/zzz'])('%s without a session -> sign-in keeping the query', async (p) => {
    expect((await open(`${p}?serviceUrl=https://app.example.com&a=1`)).path).toBe(
      '/en-US/passport/signin?serviceUrl=https://app.example.com&a=1',
    );
  });
  it('without a session, in Chinese', async () => {
    localStorage.setItem('umi_locale', 'zh-CN');
    expect((await open('/zh-CN/personal/info', 'zh-CN')).path).toBe('/zh-CN/passport/signin');
  });
  it.each([
    ['/en-US/personal', '/en-US/personal/info'],
    ['/en-US/personal/', '/en-US/personal/info'],
    ['/en-US/personal/info', '/en-US/personal/info'],
    ['/en-US/personal/secure', '/en-US/personal/secure'],
    ['/en-US/personal/zzz', '/en-US/personal/info'],
  ])('with a session %s -> %s', async (from, to) => {
    signedIn();
    expect((await open(from)).path).toBe(to);
  });
});

describe('agreement', () => {
  it.each(['/en-US/agreement', '/en-US/agreement/'])('%s -> privacy', async (p) => {
    expect((await open(p)).path).toBe('/en-US/agreement/privacy');
  });
  it.each(['/en-US/agreement/privacy', '/en-US/agreement/protocols', '/en-US/agreement/manual'])('%s stays', async (p) => {
    expect((await open(p)).path).toBe(p);
  });
  it.each(['/en-US/agreement/unknown', '/en-US/agreement/privacy/extra', '/en-US/agreement/a/b'])('unknown %s -> privacy', async (p) => {
    expect((await open(`${p}?k=1`)).path).toBe('/en-US/agreement/privacy?k=1');
  });
});

describe('other screens', () => {
  it.each(['/en-US/find/password', '/en-US/logout', '/en-US/embedded/signin?serviceUrl=https://h.example.com&validateMsg=notice', '/zh-CN/find/password', '/signout'])(
    '%s stays',
    async (p) => {
      const { path } = await open(p);
      expect(decodeURIComponent(path)).toBe(decodeURIComponent(p));
    },
  );
});

describe('ciam_origin_url (spec §3)', () => {
  it('a signed-out visit to a personal page remembers it (with its fragment) on the way to sign-in', async () => {
    const { path } = await open('/en-US/personal/secure?x=1#two-factor');
    expect(path).toBe('/en-US/passport/signin?x=1');
    expect(localStorage.getItem('ciam_origin_url')).toBe('/en-US/personal/secure?x=1#two-factor');
  });

  it('opening sign-in directly forgets an old one', async () => {
    localStorage.setItem('ciam_origin_url', '/en-US/personal/info');
    await open('/en-US/passport/signin');
    await settle(60);
    expect(localStorage.getItem('ciam_origin_url')).toBeNull();
  });

  it('a signed-in visit remembers nothing', async () => {
    signedIn();
    await open('/zh-CN/personal/info', 'zh-CN');
    expect(localStorage.getItem('ciam_origin_url')).toBeNull();
  });
});
